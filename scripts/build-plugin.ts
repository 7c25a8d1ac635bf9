#!/usr/bin/env node
/**
 * `npm run build:plugin`: the resource provider plugin as Pulumi installs it, a tarball holding one
 * executable that needs no Node.js on the machine:
 * `dist/plugin/pulumi-resource-notification-handlers-v<version>-<os>-<arch>.tar.gz`.
 *
 * The plugin's entry (`provider/plugin/main.ts`) is bundled into one script with esbuild, and the
 * script is made a Node.js single executable application: the blob that `node
 * --experimental-sea-config` writes, injected with postject into a copy of the Node.js binary that runs
 * this script (the project's pinned Node.js 24).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { build } from "esbuild";

import { REPOSITORY_ROOT } from "./user-project";

/** The plugin's executable, as the engine looks for it. */
export const PLUGIN_BINARY = "pulumi-resource-notification-handlers";
// The fuse Node.js's single-executable support looks for in its binary (Node's documentation).
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Pulumi's names for the machine's platform and architecture, as plugin tarballs carry them. */
function platform(): string {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string];
  if (arch === undefined) throw new Error(`no plugin build for the ${process.arch} architecture`);
  return `${process.platform}-${arch}`;
}

/** The tarball `npm run build:plugin` writes for this checkout's version. */
export function pluginTarball(root = REPOSITORY_ROOT): string {
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  return join(root, "dist", "plugin", `${PLUGIN_BINARY}-v${version}-${platform()}.tar.gz`);
}

/** Builds the plugin's tarball from the sources (see the file comment) and returns its path. */
export async function buildPlugin(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  const out = join(REPOSITORY_ROOT, "dist", "plugin");
  const work = join(out, "work");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const bundle = join(work, "plugin.js");
  await build({
    entryPoints: [join(REPOSITORY_ROOT, "provider", "plugin", "main.ts")],
    bundle: true,
    platform: "node",
    target: "node24",
    format: "cjs",
    outfile: bundle,
    // The version is fixed at build: the executable has no package.json beside it.
    define: { PLUGIN_VERSION: JSON.stringify(version) },
    logLevel: "warning",
  });

  const blob = join(work, "plugin.blob");
  const config = join(work, "sea-config.json");
  writeFileSync(config, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }));
  execFileSync(process.execPath, ["--experimental-sea-config", config], { stdio: "pipe" });

  const binary = join(work, PLUGIN_BINARY);
  copyFileSync(process.execPath, binary);
  execFileSync(
    process.execPath,
    [
      join(REPOSITORY_ROOT, "node_modules", "postject", "dist", "cli.js"),
      binary,
      "NODE_SEA_BLOB",
      blob,
      "--sentinel-fuse",
      SEA_FUSE,
    ],
    { stdio: "pipe" }, // its notes on the binary's sections are noise; a failure throws with them
  );

  const tarball = pluginTarball();
  execFileSync("tar", ["-czf", tarball, "-C", work, PLUGIN_BINARY]);
  rmSync(work, { recursive: true, force: true });
  return tarball;
}

if (require.main === module) {
  buildPlugin().then(
    (tarball) => process.stdout.write(`${tarball}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
