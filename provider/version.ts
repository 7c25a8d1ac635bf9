/**
 * This package's version, read in one place: the plugin and the commands print it, and the dynamic
 * provider's recorded source names it (`./dynamic/source-record`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { NPM_PACKAGE } from "./tokens";

/** The version the single executable was built with (scripts/release/build-plugin.ts); unset under plain Node.js. */
declare const PLUGIN_VERSION: string | undefined;

/**
 * This package's version: the executable's, else that of the nearest package.json above this module
 * that is this package's; `undefined` in a program bundled into one file, which has neither.
 */
export function ownVersion(): string | undefined {
  if (typeof PLUGIN_VERSION === "string") return PLUGIN_VERSION;
  found ??= { version: findVersion() };
  return found.version;
}

/** The walk's result, once per process. */
let found: { version: string | undefined } | undefined;

function findVersion(): string | undefined {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>;
    if (name === NPM_PACKAGE && typeof version === "string") return version;
  }
  return undefined;
}

/** This package's version, where it always runs from the package or the executable (the plugin, the commands). */
export function packageVersion(): string {
  const version = ownVersion();
  if (version === undefined) throw new Error(`no package.json of ${NPM_PACKAGE} above ${__dirname}`);
  return version;
}
