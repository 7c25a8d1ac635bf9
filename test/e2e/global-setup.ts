/**
 * Makes the Pulumi engine available once, before any e2e worker starts (building it from Go takes
 * minutes the first time; later runs find it in the user's cache folder).
 */
import { resolve } from "node:path";
import type { TestProject } from "vitest/node";

import { ensureEngine } from "../../scripts/engine";

export default async function setup(project: TestProject): Promise<void> {
  const engine = await ensureEngine({
    projectRoot: resolve(__dirname, "..", ".."),
    log: (line) => process.stderr.write(`[engine] ${line}\n`),
  });
  project.provide("engineBinDir", engine.binDir);
}

declare module "vitest" {
  export interface ProvidedContext {
    engineBinDir: string;
  }
}
