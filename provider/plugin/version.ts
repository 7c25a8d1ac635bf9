/**
 * The package's version, which the plugin and the commands print: fixed in the single executable at
 * build, else read from package.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The version the single executable was built with (scripts/release/build-plugin.ts); unset under plain Node.js. */
declare const PLUGIN_VERSION: string | undefined;

/** This package's version: the executable's, else its package.json's. */
export function packageVersion(): string {
  if (typeof PLUGIN_VERSION === "string") return PLUGIN_VERSION;
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as {
    version: string;
  };
  return manifest.version;
}
