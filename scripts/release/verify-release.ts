#!/usr/bin/env node
/**
 * `npm run release:verify [-- DIR-or-checksums.txt] [--out DIR]`: rebuilds the release from the
 * checkout, as `npm run release` builds it (the platforms the release has a plugin tarball for), and
 * compares every asset with the release's checksums.txt: a release's folder, or its checksums.txt
 * alone as downloaded, `dist/release/v<version>/` by default. It names each asset that differs, that
 * the rebuild lacks or that the release lacks, with what likely made it differ: the commit, the
 * toolchain each side recorded in toolchain.json, or what writes that kind of asset. Exits 1 on any.
 * The rebuild is kept in `--out` when given (docs/releasing.md#verifying-a-release).
 */
import { existsSync, statSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";

import { PLUGIN_EXECUTABLE } from "../../provider/tokens";
import { CHECKSUMS_FILE, packageVersion, sha256File } from "./build-plugin";
import { buildRelease, releaseFolder } from "./release";
import { RELEASE_TARGETS, platformOf } from "./targets";
import {
  TOOLCHAIN_RECORD,
  type ToolchainRecord,
  readToolchainRecord,
  toolchainDifferences,
} from "./toolchain";
import { formatDuration, toStderr } from "../support/progress";
import { scratchFolder } from "../support/user-project";

/** checksums.txt read: each file's SHA-256 by its path. */
export function parseChecksums(text: string, source: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [index, line] of text.split("\n").entries()) {
    if (line === "") continue;
    const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (match === null)
      throw new Error(`${source} line ${index + 1} is not "<sha256>  <file>", as sha256sum writes: ${line}`);
    if (sums.has(match[2]!)) throw new Error(`${source} lists ${match[2]} twice`);
    sums.set(match[2]!, match[1]!);
  }
  if (sums.size === 0) throw new Error(`${source} lists no file`);
  return sums;
}

/** The version and platforms of a release, from its plugin tarballs' names. */
export function releasedPlugins(files: Iterable<string>): { version: string; platforms: string[] } {
  const pattern = new RegExp(`^${PLUGIN_EXECUTABLE}-v(\\d[^/]*)-([a-z]+-[a-z0-9]+)\\.tar\\.gz$`);
  const found = [...files].flatMap((file) => {
    const match = pattern.exec(file);
    return match === null ? [] : [{ version: match[1]!, platform: match[2]! }];
  });
  const versions = [...new Set(found.map((f) => f.version))];
  if (versions.length !== 1)
    throw new Error(
      `the release should name one version in its plugin tarballs, not ${versions.length === 0 ? "none" : versions.join(", ")}`,
    );
  return { version: versions[0]!, platforms: found.map((f) => f.platform).sort() };
}

/** Why an asset of this kind can differ, besides the commit and the toolchain. */
export function whatWritesIt(asset: string): string {
  if (asset === TOOLCHAIN_RECORD) return "it records the commit, its time and the toolchain, compared below";
  if (asset.endsWith(".cdx.json"))
    return "an SBOM: the asset it describes differs, or the packages installed do (npm ci installs the lockfile's)";
  if (asset.startsWith(`${PLUGIN_EXECUTABLE}-`))
    return "the executable: the Node.js runtime it is made of (scripts/release/targets.ts), what esbuild bundled from node_modules (npm ci), or the macOS signature (rcodesign)";
  if (asset.endsWith(".tgz"))
    return "npm pack: npm's version, or dist/ built from other sources (npm run build)";
  if (asset.endsWith(".whl") || asset.endsWith(".tar.gz"))
    return "the Python SDK: Python's or setuptools' version (scripts/release/python-tools.txt), or the SDK generator's";
  if (asset.startsWith("goproxy/") || asset.endsWith(".zip"))
    return "a zip of the Go helper: Go's version, or the SDK generator's output";
  return "an asset this command does not know";
}

/** What one side recorded in toolchain.json, or why it has no record. */
type RecordOrWhyNone = ToolchainRecord | string;

/** The reasons that hold for every asset: the commit, the time, the toolchain. */
export function commonCauses(release: RecordOrWhyNone, rebuild: RecordOrWhyNone): string[] {
  if (typeof release === "string")
    return [`the release has ${release}, so its commit and toolchain are unknown`];
  if (typeof rebuild === "string") return [`the rebuild has ${rebuild}`];
  const causes: string[] = [];
  if (release.commit !== rebuild.commit)
    causes.push(
      `the release was built from commit ${release.commit}, the checkout is at ${rebuild.commit}: check out the release's tag`,
    );
  if (release.epoch !== rebuild.epoch)
    causes.push(
      `the release stamped its files with SOURCE_DATE_EPOCH=${release.epoch}, the rebuild with ${rebuild.epoch}`,
    );
  causes.push(
    ...toolchainDifferences(
      { label: "the release", toolchain: release.toolchain },
      { label: "this rebuild", toolchain: rebuild.toolchain },
    ),
  );
  return causes;
}

/** One asset that is not the same on both sides. */
export interface Finding {
  asset: string;
  what: "differs" | "not rebuilt" | "not in the release";
  why: string;
}

/** The assets whose SHA-256 differ between the release and the rebuild, or that one side lacks. */
export function compareChecksums(release: Map<string, string>, rebuild: Map<string, string>): Finding[] {
  const findings: Finding[] = [];
  for (const [asset, sum] of release) {
    const rebuilt = rebuild.get(asset);
    if (rebuilt === undefined)
      findings.push({ asset, what: "not rebuilt", why: "the checkout's release has no such file" });
    else if (rebuilt !== sum) findings.push({ asset, what: "differs", why: whatWritesIt(asset) });
  }
  for (const asset of rebuild.keys())
    if (!release.has(asset))
      findings.push({
        asset,
        what: "not in the release",
        why: "the checkout's release makes it, the release has none",
      });
  return findings.sort((a, b) => (a.asset < b.asset ? -1 : 1));
}

/** The release's checksums.txt, and its folder when its assets are beside it. */
function locate(given: string | undefined): { checksums: string; folder: string } {
  const path = resolve(given ?? releaseFolder());
  if (!existsSync(path))
    throw new Error(
      `no release at ${path}: give a release's folder or its ${CHECKSUMS_FILE}, as the GitHub release has it`,
    );
  const checksums = statSync(path).isDirectory() ? join(path, CHECKSUMS_FILE) : path;
  if (!existsSync(checksums)) throw new Error(`${path} holds no ${CHECKSUMS_FILE}`);
  return { checksums, folder: dirname(checksums) };
}

/** Verifies the release (see the file comment); returns the report and whether every asset matches. */
export async function verifyRelease(options: {
  release?: string | undefined;
  out?: string | undefined;
}): Promise<{ report: string; same: boolean }> {
  const { checksums, folder } = locate(options.release);
  const sums = parseChecksums(await readFile(checksums, "utf8"), checksums);
  const { version, platforms } = releasedPlugins(sums.keys());
  if (version !== packageVersion())
    throw new Error(
      `the release is of version ${version}, the checkout's package.json of ${packageVersion()}: check out the tag v${version}`,
    );
  // Files beside checksums.txt that no longer match it were changed after the release was made.
  const damaged: string[] = [];
  for (const [asset, sum] of sums) {
    const file = join(folder, asset);
    if (existsSync(file) && (await sha256File(file)) !== sum)
      damaged.push(
        `does not match ${CHECKSUMS_FILE}: ${asset}\n  likely: damaged, or changed after the release was made`,
      );
  }

  const every = RELEASE_TARGETS.map(platformOf).sort();
  const allPlatforms = every.length === platforms.length && every.every((p, i) => p === platforms[i]);
  // The rebuild empties its folder first: never the release's own.
  if (options.out !== undefined && resolve(options.out) === folder)
    throw new Error(`--out ${options.out} is the release's folder, which the rebuild would replace`);
  const out =
    options.out === undefined
      ? join(await scratchFolder("release-verify"), `v${version}`)
      : resolve(options.out);
  try {
    const started = performance.now();
    await buildRelease(toStderr, { platforms: allPlatforms ? undefined : platforms, out });
    toStderr(`The rebuild took ${formatDuration(performance.now() - started)}.`);
    const rebuilt = parseChecksums(await readFile(join(out, CHECKSUMS_FILE), "utf8"), "the rebuild");
    const findings = compareChecksums(sums, rebuilt);
    const releaseRecord = existsSync(join(folder, TOOLCHAIN_RECORD))
      ? await readToolchainRecord(join(folder, TOOLCHAIN_RECORD))
      : `no ${TOOLCHAIN_RECORD} beside ${CHECKSUMS_FILE}`;
    const causes =
      findings.length === 0
        ? []
        : commonCauses(releaseRecord, await readToolchainRecord(join(out, TOOLCHAIN_RECORD)));
    const matching = [...sums.keys()].filter((asset) => rebuilt.get(asset) === sums.get(asset)).length;
    const lines = [
      `Rebuilt v${version} (${platforms.join(", ")}) from the checkout: ${matching} of ${sums.size} assets of ${checksums} match.`,
      ...damaged,
    ];
    for (const finding of findings) lines.push(`${finding.what}: ${finding.asset}\n  likely: ${finding.why}`);
    if (causes.length > 0)
      lines.push(`What differs between the two builds:\n${causes.map((c) => `  - ${c}`).join("\n")}`);
    else if (findings.length > 0) lines.push("The commit and the toolchain are the same on both sides.");
    return { report: `${lines.join("\n")}\n`, same: findings.length === 0 && damaged.length === 0 };
  } finally {
    if (options.out === undefined) await rm(dirname(out), { recursive: true, force: true });
  }
}

if (require.main === module) {
  // Exit 1 says an asset differs; anything that stops the comparison, a bad argument included, is 2.
  const fail = (error: unknown): never => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  };
  const { values, positionals } = (() => {
    try {
      return parseArgs({ options: { out: { type: "string" } }, allowPositionals: true });
    } catch (error) {
      return fail(error);
    }
  })();
  if (positionals.length > 1) fail("release:verify takes one release: its folder or its checksums.txt");
  verifyRelease({ release: positionals[0], out: values.out }).then(({ report, same }) => {
    process.stdout.write(report);
    process.exit(same ? 0 : 1);
  }, fail);
}
