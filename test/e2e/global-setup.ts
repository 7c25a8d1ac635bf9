/**
 * Before any e2e worker starts: makes the Pulumi engine available once (building it from Go takes
 * minutes the first time; later runs find it in the user's cache folder), with a Node.js language host
 * (an installed one, else the project's own), builds the plugin's tarball and the SDKs, and packs the
 * package as npm would publish it, for the tests on the user's path.
 */
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { TestProject } from "vitest/node";

import { PLUGIN_BUILD, buildPlugin } from "../../scripts/build-plugin";
import { CHECKOUT_SDKS, generateSdks } from "../../scripts/build-sdks";
import { enginePath, ensureEngine } from "../../scripts/engine";
import { type PackageSpecs, packPackages, scratchFolder } from "../../scripts/user-project";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const engine = await ensureEngine({
    projectRoot: resolve(__dirname, "..", ".."),
    log: (line) => process.stderr.write(`[engine] ${line}\n`),
    yaml: true,
  });
  // The provider plugin's tarball where `npm run build:plugin` writes it, and the SDKs where
  // `npm run build:sdks` writes them, for the READMEs that install them.
  await buildPlugin(PLUGIN_BUILD, (line) => process.stderr.write(`[plugin] ${line}\n`));
  await generateSdks({ ...CHECKOUT_SDKS, log: (line) => process.stderr.write(`[sdks] ${line}\n`) });
  project.provide("engineBinDir", engine.binDir);
  project.provide("enginePath", enginePath(engine));

  const packs = await scratchFolder("pack");
  project.provide("packages", await packPackages(packs));
  const installs = await scratchFolder("installs");
  project.provide("installs", installs);
  return async () => {
    await rm(packs, { recursive: true, force: true });
    await rm(installs, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    engineBinDir: string;
    /** Folders to put first on a user's PATH: the CLI, the language host, the pinned Node.js. */
    enginePath: string[];
    /** The repository's packages as `npm pack` made them, as `file:` specs. */
    packages: PackageSpecs;
    /** A folder for the finished installs that user projects are seeded from (see `seedDependencies`). */
    installs: string;
  }
}
