#!/usr/bin/env node
/**
 * `npm run build:plugin`: the resource provider plugin as Pulumi installs it, a tarball holding one
 * executable that needs no Node.js on the machine:
 * `dist/plugin/pulumi-resource-notification-handlers-v<version>-<os>-<arch>.tar.gz`, and beside it
 * `checksums.txt`: the folder is the plugin's part of a release, as its GitHub release holds it.
 *
 * The executable's entry (`cli/plugin-executable.ts`: the plugin, or a command run by hand) is bundled into one script with esbuild, and the
 * script is made a Node.js single executable application: the blob that `node
 * --experimental-sea-config` writes (no code cache: the same sources make the same bytes), injected with postject into a copy of the Node.js binary that runs
 * this script (the project's pinned Node.js 24). `bench:engine --yaml` builds its no-op plugin from
 * another entry the same way, and `npm run release` (scripts/release/release.ts) builds every platform's
 * from these steps.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { promisify } from "node:util";

import { build } from "esbuild";

import { PLUGIN_EXECUTABLE } from "../../provider/tokens";
import { releaseCommit } from "./commit";
import { writeTarGz } from "./tar-gz";
import { type ProgressLog, step, toStderr } from "../support/progress";
import { REPOSITORY_ROOT } from "../support/user-project";

const run = promisify(execFile);

/** The fuse Node.js's single-executable support looks for in its binary (Node's documentation). */
export const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** Pulumi's names for the machine's platform and architecture, as plugin tarballs carry them. */
export function machinePlatform(): string {
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
export function packageVersion(root = REPOSITORY_ROOT): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * The release's checksums beside the tarball: `<sha256>  <file>` a line, as `sha256sum` writes and
 * checks them, and what `pulumi plugin install --checksum` takes (docs/plugin.md#installing-the-plugin).
 */
export const CHECKSUMS_FILE = "checksums.txt";

/** A plugin tarball's name, as Pulumi names a release asset; `target` is `linux-amd64`, `windows-amd64`... */
export const pluginTarballName = (version: string, target = machinePlatform()): string =>
  `${PLUGIN_EXECUTABLE}-v${version}-${target}.tar.gz`;

/** The tarball `npm run build:plugin` writes for this checkout's version. */
export function pluginTarball(root = REPOSITORY_ROOT): string {
  return join(root, "dist", "plugin", pluginTarballName(packageVersion(root)));
}

/** The SHA-256 of a file, in hex. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Bundles a plugin's entry into one CommonJS script for Node.js 24, with `version` fixed in it, and
 * returns the files it bundled, relative to the repository (esbuild's metafile), for the SBOM.
 */
export async function bundlePlugin(entry: string, outfile: string, version: string): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: "node24",
    format: "cjs",
    outfile,
    // The bundle names its modules by their paths from here: the same wherever the checkout is.
    absWorkingDir: REPOSITORY_ROOT,
    metafile: true,
    // The version is fixed at build: the executable has no package.json beside it.
    define: { PLUGIN_VERSION: JSON.stringify(version) },
    logLevel: "warning",
  });
  return Object.keys(result.metafile.inputs).sort();
}

/**
 * Writes the single-executable blob of `script` with the Node.js binary `node`: a blob is read only
 * by a Node.js of the version that wrote it. Without V8's code cache or a startup snapshot, which
 * differ from one build to the next, so that the same script makes the same blob
 * (docs/performance.md#the-plugin has what the cache would save at start-up).
 */
export async function writeSeaBlob(node: string, script: string, blob: string): Promise<void> {
  const config = `${blob}.json`;
  await writeFile(
    config,
    JSON.stringify({
      // The blob records the script's path as given: a name alone, read from its folder.
      main: basename(script),
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      useSnapshot: false,
    }),
  );
  await run(node, ["--experimental-sea-config", config], { cwd: dirname(script) });
}

/**
 * Injects a blob into a copy of a Node.js binary, in place, with postject: as a section of an ELF
 * or a PE, in the `NODE_SEA` segment of a Mach-O, where Node.js looks for it.
 */
export async function injectSeaBlob(
  executable: string,
  blob: string,
  options: { macho: boolean },
): Promise<void> {
  const postject = join(REPOSITORY_ROOT, "node_modules", "postject", "dist", "cli.js");
  const segment = options.macho ? ["--macho-segment-name", "NODE_SEA"] : [];
  // Its notes on the binary's sections are noise; a failure throws with them.
  await run(process.execPath, [
    postject,
    executable,
    "NODE_SEA_BLOB",
    blob,
    "--sentinel-fuse",
    SEA_FUSE,
    ...segment,
  ]);
}

/** Packs one executable, at the tarball's root, as Pulumi unpacks a plugin, stamped `epoch`. */
export async function packTarball(tarball: string, executable: string, epoch: number): Promise<void> {
  await writeTarGz(
    tarball,
    [{ name: basename(executable), executable: true, data: { file: executable } }],
    epoch,
  );
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
  const { epoch } = await releaseCommit();
  const out = plugin.outDir;
  const work = join(out, "work");
  await rm(out, { recursive: true, force: true });
  await mkdir(work, { recursive: true });

  const bundle = join(work, "plugin.js");
  await step(log, `Bundling ${relative(REPOSITORY_ROOT, plugin.entry)} with esbuild`, () =>
    bundlePlugin(plugin.entry, bundle, version),
  );

  const blob = join(work, "plugin.blob");
  await step(log, "Writing the single-executable blob (node --experimental-sea-config)", () =>
    writeSeaBlob(process.execPath, bundle, blob),
  );

  const binary = join(work, PLUGIN_EXECUTABLE);
  await step(log, `Injecting it into a copy of Node.js ${process.version} (postject)`, async () => {
    await copyFile(process.execPath, binary);
    await injectSeaBlob(binary, blob, { macho: process.platform === "darwin" });
  });

  const tarball = join(out, pluginTarballName(version));
  await step(log, `Packing ${relative(REPOSITORY_ROOT, tarball)}`, () => packTarball(tarball, binary, epoch));
  await rm(work, { recursive: true, force: true });
  await step(log, `Writing ${CHECKSUMS_FILE}`, async () => {
    await writeFile(join(out, CHECKSUMS_FILE), `${await sha256File(tarball)}  ${basename(tarball)}\n`);
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
