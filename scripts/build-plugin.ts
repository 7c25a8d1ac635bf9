#!/usr/bin/env node
/**
 * `npm run build:plugin`: the resource provider plugin as Pulumi installs it, a tarball holding one
 * executable that needs no Node.js on the machine:
 * `dist/plugin/pulumi-resource-notification-handlers-v<version>-<os>-<arch>.tar.gz`, and beside it
 * `checksums.txt`: the folder is the plugin's part of a release, as its GitHub release holds it.
 *
 * The executable's entry (`cli/plugin-executable.ts`: the plugin, or a command run by hand) is bundled into one script with esbuild, and the
 * script is made a Node.js single executable application: the blob that `node
 * --experimental-sea-config` writes, injected with postject into a copy of the Node.js binary that runs
 * this script (the project's pinned Node.js 24). `bench:engine --yaml` builds its no-op plugin from
 * another entry the same way.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, createReadStream, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";

import { build } from "esbuild";

import { PLUGIN_EXECUTABLE } from "../provider/tokens";
import { type ProgressLog, step, toStderr } from "./progress";
import { REPOSITORY_ROOT } from "./user-project";
// The fuse Node.js's single-executable support looks for in its binary (Node's documentation).
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Pulumi's names for the machine's platform and architecture, as plugin tarballs carry them. */
function platform(): string {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string];
  if (arch === undefined) throw new Error(`no plugin build for the ${process.arch} architecture`);
  return `${process.platform}-${arch}`;
}

/** A single-executable plugin to build: its entry, and the folder its tarball goes to. */
export interface PluginBuild {
  /** The entry script, which serves the plugin (`cli/plugin-executable.ts` for the real one). */
  entry: string;
  /** The folder the tarball is written to; emptied first. */
  outDir: string;
}

/** The real plugin: `npm run build:plugin`'s. */
export const PLUGIN_BUILD: PluginBuild = {
  entry: join(REPOSITORY_ROOT, "cli", "plugin-executable.ts"),
  outDir: join(REPOSITORY_ROOT, "dist", "plugin"),
};

/** The version in package.json. */
function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * The release's checksums beside the tarball: `<sha256>  <file>` a line, as `sha256sum` writes and
 * checks them, and what `pulumi plugin install --checksum` takes (docs/plugin.md#installing-the-plugin).
 */
export const CHECKSUMS_FILE = "checksums.txt";

/** The tarball's name in its folder, as Pulumi names a plugin's release asset. */
const tarballName = (version: string): string => `${PLUGIN_EXECUTABLE}-v${version}-${platform()}.tar.gz`;

/** The tarball `npm run build:plugin` writes for this checkout's version. */
export function pluginTarball(root = REPOSITORY_ROOT): string {
  return join(root, "dist", "plugin", tarballName(packageVersion(root)));
}

/**
 * Builds a plugin's tarball from the sources (see the file comment) and returns its path; the real
 * plugin's unless told otherwise. Every build's executable is `pulumi-resource-notification-handlers`.
 * Each step's start and duration go to `log`, nowhere unless given.
 */
export async function buildPlugin(
  plugin: PluginBuild = PLUGIN_BUILD,
  log: ProgressLog = () => undefined,
): Promise<string> {
  const version = packageVersion(REPOSITORY_ROOT);
  const out = plugin.outDir;
  const work = join(out, "work");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const bundle = join(work, "plugin.js");
  await step(log, `Bundling ${relative(REPOSITORY_ROOT, plugin.entry)} with esbuild`, () =>
    build({
      entryPoints: [plugin.entry],
      bundle: true,
      platform: "node",
      target: "node24",
      format: "cjs",
      outfile: bundle,
      // The version is fixed at build: the executable has no package.json beside it.
      define: { PLUGIN_VERSION: JSON.stringify(version) },
      logLevel: "warning",
    }),
  );

  const blob = join(work, "plugin.blob");
  const config = join(work, "sea-config.json");
  writeFileSync(
    config,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
  );
  await step(log, "Writing the single-executable blob (node --experimental-sea-config)", () =>
    execFileSync(process.execPath, ["--experimental-sea-config", config], { stdio: "pipe" }),
  );

  const binary = join(work, PLUGIN_EXECUTABLE);
  await step(log, `Injecting it into a copy of Node.js ${process.version} (postject)`, () => {
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
  });

  const tarball = join(out, tarballName(version));
  await step(log, `Packing ${relative(REPOSITORY_ROOT, tarball)}`, () =>
    execFileSync("tar", ["-czf", tarball, "-C", work, PLUGIN_EXECUTABLE]),
  );
  rmSync(work, { recursive: true, force: true });
  await step(log, `Writing ${CHECKSUMS_FILE}`, async () => {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(tarball)) hash.update(chunk as Buffer);
    writeFileSync(join(out, CHECKSUMS_FILE), `${hash.digest("hex")}  ${basename(tarball)}\n`);
  });
  return tarball;
}

if (require.main === module) {
  buildPlugin(PLUGIN_BUILD, toStderr).then(
    (tarball) => process.stdout.write(`${tarball}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
