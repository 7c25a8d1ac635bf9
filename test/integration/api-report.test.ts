/**
 * What a release promises: the public API of every export path is the one its committed report in
 * api/ records (api/README.md). Here, not in unit/: the reports are read from the built declarations.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

/** Runs `node api/report.mjs ARGS` on this Node.js, resolving to its exit code and what it printed. */
function report(...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "api", "report.mjs"), ...args],
      { cwd: ROOT },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          output: stdout + stderr,
        });
      },
    );
  });
}

describe("the API reports", () => {
  it("record the public API of every export path as built (else: npm run generate)", async () => {
    const { code, output } = await report("--check");
    expect(code, output).toBe(0);
  }, 120_000); // 2 min: one TypeScript program over the declarations, on a busy machine

  it("keep ./provider/runtime and ./package.json where every recorded state loads them", () => {
    const { exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, string>;
    };
    expect(exports["./provider/runtime"]).toBe("./dist/provider/dynamic/runtime.js");
    expect(exports["./package.json"]).toBe("./package.json");
  });
});
