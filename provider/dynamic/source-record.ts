/**
 * What a new state's provider source records besides its contract (`./provider-source`), found in the
 * program: the version of this package, and the folder from which the dynamic-provider process can
 * reach this copy of it when the project's root folder does not lead to it (a nested install).
 */
import { createRequire } from "node:module";
import { isAbsolute, join, relative, sep } from "node:path";

import type { SourceRecord } from "./provider-source";
import { RUNTIME_MODULE } from "../tokens";
import { ownVersion } from "../version";

/** Resolves `request` as a module in `folder` would; `undefined` when it is not found from there. */
export type ResolveFrom = (request: string, folder: string) => string | undefined;

/** Node's own resolution from a folder, as the recorded source resolves (no self-reference). */
export const resolveFrom: ResolveFrom = (request, folder) => {
  try {
    // A module in `folder` itself, so the lookup walks up from there (not from this package).
    return createRequire(join(folder, "noop.js")).resolve(request);
  } catch {
    return undefined;
  }
};

/**
 * The folder, relative to `root` with `/` separators, from which `ownRuntime` (a resolved path) is
 * found by name, when `root` does not find it: of the folders from the root down to the one whose
 * `node_modules` holds the package, the highest that works, so that it stays valid when the package
 * is upgraded in place (pnpm's `node_modules/.pnpm` rather than `node_modules/.pnpm/<name>@<version>`).
 * `undefined` when the root finds it, or when the package lies outside the root: a parent folder's
 * `node_modules` is on the name's way up from the root already, and an absolute path must never be
 * recorded (states move between machines).
 */
export function fallbackFolder(root: string, ownRuntime: string, resolve: ResolveFrom): string | undefined {
  if (resolve(RUNTIME_MODULE, root) === ownRuntime) return undefined;
  const inModules = ownRuntime.lastIndexOf(`${sep}node_modules${sep}`);
  if (inModules < 0) return undefined;
  const holder = relative(root, ownRuntime.slice(0, inModules));
  if (holder === "" || holder.startsWith("..") || isAbsolute(holder)) return undefined;
  const parts = holder.split(sep);
  for (let depth = 1; depth <= parts.length; depth += 1) {
    const folder = parts.slice(0, depth);
    if (resolve(RUNTIME_MODULE, join(root, ...folder)) === ownRuntime) return folder.join("/");
  }
  return undefined;
}

/**
 * What a state written by this copy of the package, in the project whose root folder is `root`,
 * records. In a program bundled into one file, which has no package.json of this package beside it,
 * the version is `latest` (what the messages then tell to install).
 */
export function sourceRecord(root: string): SourceRecord {
  const version = ownVersion() ?? "latest";
  // Module paths are real paths, as resolutions are: the two compare.
  const folder = fallbackFolder(root, join(__dirname, "runtime.js"), resolveFrom);
  return folder === undefined ? { version } : { version, folder };
}
