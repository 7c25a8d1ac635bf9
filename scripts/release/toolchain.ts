/**
 * The toolchain a release is built with, pinned here alone (the release workflow installs the same
 * versions, and a unit test holds it to this table): each of them can change an asset's bytes. Node.js
 * runs esbuild and writes the linux-amd64 executable's blob, npm packs the npm packages, Python and
 * its zlib write the wheel and the sdist's metadata, Go compresses the Go module's and the .NET zips.
 * A release records the versions it was built with in `toolchain.json`, one of its assets, which
 * `npm run release:verify` compares with its own.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A version of each tool, without a `v` or `go` in front: `24.21.0`. */
export interface Toolchain {
  node: string;
  npm: string;
  python: string;
  go: string;
}

/** The release's pinned toolchain. */
export const PINNED_TOOLCHAIN: Toolchain = {
  node: "24.21.0",
  npm: "11.19.1",
  python: "3.11.7",
  go: "1.26.8",
};

/** How people name each tool. */
export const TOOL_NAMES: Record<keyof Toolchain, string> = {
  node: "Node.js",
  npm: "npm",
  python: "Python",
  go: "Go",
};

/** The versions of the tools this process builds with; `python` is the Python tools' interpreter. */
export async function runningToolchain(python: string): Promise<Toolchain> {
  const output = async (command: string, args: string[]): Promise<string> =>
    (await run(command, args)).stdout.trim();
  return {
    node: process.version.replace(/^v/, ""),
    npm: await output("npm", ["--version"]),
    python: (await output(python, ["--version"])).replace(/^Python /, ""),
    go: (await output("go", ["env", "GOVERSION"])).replace(/^go/, ""),
  };
}

/**
 * A line per tool whose versions differ, each side named by its label:
 * `Node.js 24.20.0 (the release) against 24.21.0 (this rebuild)`; none when they agree.
 */
export function toolchainDifferences(
  a: { label: string; toolchain: Toolchain },
  b: { label: string; toolchain: Toolchain },
): string[] {
  return (Object.keys(TOOL_NAMES) as (keyof Toolchain)[])
    .filter((tool) => a.toolchain[tool] !== b.toolchain[tool])
    .map(
      (tool) =>
        `${TOOL_NAMES[tool]} ${a.toolchain[tool]} (${a.label}) against ${b.toolchain[tool]} (${b.label})`,
    );
}

/** The asset that records what a release was built from and with. */
export const TOOLCHAIN_RECORD = "toolchain.json";

/** What {@link TOOLCHAIN_RECORD} holds. */
export interface ToolchainRecord {
  commit: string;
  /** `SOURCE_DATE_EPOCH`, the time every asset is stamped with. */
  epoch: number;
  toolchain: Toolchain;
}

/** Writes {@link TOOLCHAIN_RECORD}: the commit, its time and the toolchain, nothing of the machine. */
export async function writeToolchainRecord(file: string, record: ToolchainRecord): Promise<void> {
  const { commit, epoch, toolchain } = record;
  await writeFile(file, `${JSON.stringify({ commit, epoch, toolchain }, null, 2)}\n`);
}

/** A release's record, or why it has none that can be read. */
export async function readToolchainRecord(file: string): Promise<ToolchainRecord | string> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return `no ${TOOLCHAIN_RECORD} beside it`;
  try {
    const record = JSON.parse(text) as ToolchainRecord;
    if (
      typeof record.commit !== "string" ||
      typeof record.epoch !== "number" ||
      typeof record.toolchain !== "object" ||
      record.toolchain === null
    )
      return `${TOOLCHAIN_RECORD} lacks commit, epoch or toolchain`;
    return record;
  } catch {
    return `${TOOLCHAIN_RECORD} is not JSON`;
  }
}
