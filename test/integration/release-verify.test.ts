/**
 * `npm run release:verify` (the built script) exits 2, with a message and nothing on stdout, on what
 * stops it from comparing: exit 1 says an asset differs, which a mistyped argument must not look
 * like. Each case here stops before the rebuild, which e2e/release-workflow runs.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PLUGIN_EXECUTABLE } from "../../provider/tokens";
import { packageVersion } from "../../scripts/release/build-plugin";
import { type CommandResult, REPOSITORY_ROOT, runCommand } from "../../scripts/support/user-project";

let folder = "";

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "release-verify-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A release folder whose checksums.txt lists one plugin tarball of `version`. */
async function release(name: string, version: string): Promise<string> {
  const at = join(folder, name);
  await mkdir(at);
  await writeFile(
    join(at, "checksums.txt"),
    `${"a".repeat(64)}  ${PLUGIN_EXECUTABLE}-v${version}-linux-amd64.tar.gz\n`,
  );
  return at;
}

/** The built `release:verify` run with `args`. */
async function verify(...args: string[]): Promise<CommandResult> {
  return runCommand(
    process.execPath,
    [join(REPOSITORY_ROOT, "dist", "scripts", "release", "verify-release.js"), ...args],
    { cwd: REPOSITORY_ROOT, env: process.env },
  );
}

describe("release:verify", () => {
  it("exits 2 on an option it does not take, or two releases", async () => {
    const unknown = await verify("--bogus");
    expect([unknown.code, unknown.stdout]).toEqual([2, ""]);
    expect(unknown.stderr).toContain("Unknown option '--bogus'");
    const two = await verify("a", "b");
    expect([two.code, two.stdout, two.stderr]).toEqual([
      2,
      "",
      "release:verify takes one release: its folder or its checksums.txt\n",
    ]);
  });

  it("exits 2 on no release, another version's, or --out naming the release's own folder", async () => {
    const missing = join(folder, "missing");
    const none = await verify(missing);
    expect([none.code, none.stdout]).toEqual([2, ""]);
    expect(none.stderr).toContain(`no release at ${missing}`);
    const other = await verify(await release("other", "0.0.1-other"));
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("the release is of version 0.0.1-other");
    const own = await release("own", packageVersion());
    expect(await verify(own, "--out", own)).toMatchObject({
      code: 2,
      stderr: `--out ${own} is the release's folder, which the rebuild would replace\n`,
    });
  });
});
