/**
 * The provider's compile cache (provider/core/compile-cache.ts), in a process that loads the compiled
 * runtime and is then ended with SIGINT, as the engine ends a dynamic-provider process (build first
 * with `npm run build`).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, expect, it } from "vitest";

const RUNTIME = resolve(__dirname, "..", "..", "dist", "provider", "dynamic", "runtime.js");

let temporary: string | undefined;
afterEach(() => {
  if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
});

it("is written once the runtime has loaded, before a signal ends the process", async () => {
  temporary = mkdtempSync(join(tmpdir(), "provider-compile-cache-"));
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temporary };
  delete env.NODE_COMPILE_CACHE; // the default folder, as a user without the variable has it
  // Says "loaded" after the runtime's own queued work, then waits for the signal as a provider does.
  const script = `require(${JSON.stringify(RUNTIME)});
setImmediate(() => process.stdout.write("loaded\\n"));
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", script], { env, stdio: ["ignore", "pipe", "inherit"] });
  const [first] = (await once(child.stdout, "data")) as [Buffer];
  expect(first.toString()).toBe("loaded\n");
  child.kill("SIGINT");
  const [, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  expect(signal).toBe("SIGINT");

  const cache = join(temporary, "node-compile-cache");
  const versions = readdirSync(cache);
  expect(versions).toHaveLength(1);
  expect(readdirSync(join(cache, versions[0]!)).length).toBeGreaterThan(10);
});
