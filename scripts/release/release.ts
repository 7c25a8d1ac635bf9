#!/usr/bin/env node
/**
 * `npm run release`: every asset of a release, as its GitHub release holds them, in
 * `dist/release/v<version>/` (docs/releasing.md):
 *
 * - the plugin, `pulumi-resource-notification-handlers-v<version>-<os>-<arch>.tar.gz`, for each
 *   target of scripts/release/targets.ts: one executable made from that platform's Node.js runtime as
 *   `build:plugin` makes the machine's own (the same bundle; a blob written by a Node.js of the
 *   runtime's exact version; postject), the macOS ones signed ad hoc, the Windows one renamed `.exe`;
 * - the npm packages as `npm pack` makes them: the provider's and the server's;
 * - the Python SDK's wheel and sdist, checked by `twine check`;
 * - the Go SDK as a Go module proxy serves it, under `goproxy/`;
 * - the .NET SDK's sources, zipped;
 * - an SBOM beside each npm package, the wheel and each plugin tarball, `<asset>.cdx.json`;
 * - `toolchain.json`, the commit, its time and the versions of the tools the release was built with;
 * - `checksums.txt`, the SHA-256 of every other file, as `sha256sum -c` checks them.
 *
 * The same commit makes the same bytes (docs/releasing.md#reproducible-assets): every time is the
 * commit's, the archives are written by the release itself, the blobs hold no code cache.
 *
 * `npm run release:check` proves the folder (test/release/). The SDKs are generated afresh for the
 * release, from the committed schema, into a work folder: the checkout's `sdk/` is left as it is.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { parseArgs, promisify } from "node:util";

import { PLUGIN_EXECUTABLE } from "../../provider/tokens";
import {
  CHECKSUMS_FILE,
  PLUGIN_BUILD,
  bundlePlugin,
  injectSeaBlob,
  machinePlatform,
  packTarball,
  packageVersion,
  pluginTarballName,
  sha256File,
  writeSeaBlob,
} from "./build-plugin";
import { generateSdks } from "./build-sdks";
import { releaseCommit, rfc3339 } from "./commit";
import { writeReleaseSboms } from "./release-sboms";
import { readTarGz, writeTarGz } from "./tar-gz";
import {
  PINNED_TOOLCHAIN,
  TOOLCHAIN_RECORD,
  runningToolchain,
  toolchainDifferences,
  writeToolchainRecord,
} from "./toolchain";
import { type ProgressLog, formatDuration, step, toStderr } from "../support/progress";
import { bundleGoSdkTag, goSdkBundleName, goSdkTag, tagGoSdk } from "./go-tag";
import { describeExecutable, inspectExecutable, withPeChecksum, withoutAuthenticode } from "./formats";
import {
  type BuiltTarget,
  type NodeRuntime,
  RELEASE_TARGETS,
  type ReleaseTarget,
  blobWriterFor,
  executableName,
  findRuntime,
  platformOf,
  runtimeSpec,
} from "./targets";
import {
  pythonToolPin,
  buildReleaseGo,
  filesUnder,
  ensurePythonTools,
  ensureRcodesign,
  extractRuntime,
  fetchRuntime,
} from "./tools";
import {
  PACKAGES,
  type PackageSpecs,
  REPOSITORY_ROOT,
  packPackages,
  scratchFolder,
} from "../support/user-project";

const run = promisify(execFile);

/** Where releases are written, a folder per version. */
export const RELEASE_ROOT = join(REPOSITORY_ROOT, "dist", "release");

/** The folder of the release of `version`: package.json's unless given. */
export const releaseFolder = (version = packageVersion()): string => join(RELEASE_ROOT, `v${version}`);

/** The Go SDK's module path, as its generated go.mod names it. */
export const GO_MODULE = "github.com/notification-handlers/pulumi-notification-handlers/sdk/go";

/** `file:` specs of the npm packages in the release folder `folder`, as `npm pack` named them. */
export function releasedPackages(folder: string, version = packageVersion()): PackageSpecs {
  const specs: Partial<PackageSpecs> = {};
  for (const name of Object.keys(PACKAGES) as (keyof PackageSpecs)[])
    specs[name] = `file:${join(folder, `${name}-${version}.tgz`)}`;
  return specs as PackageSpecs;
}

/** The .NET SDK's zip of sources for `version`, and the folder its files are under. */
export const dotnetZipName = (version: string): string =>
  `pulumi-notification-handlers-dotnet-sdk-v${version}.zip`;

/** The Python SDK's distribution name, as the wheel and the sdist begin. */
export const PYTHON_DISTRIBUTION = "pulumi_notification_handlers";

/** The Python SDK's wheel and sdist of `version`. */
export const pythonWheelName = (version: string): string =>
  `${PYTHON_DISTRIBUTION}-${version}-py3-none-any.whl`;
export const pythonSdistName = (version: string): string => `${PYTHON_DISTRIBUTION}-${version}.tar.gz`;

/** The Python SDK's name as pip takes it in `pip install` and a requirement, and as `pip freeze` lists it. */
export const PYTHON_PACKAGE = PYTHON_DISTRIBUTION.replaceAll("_", "-");

/**
 * The sdist's build system: setuptools, pinned as the release builds with it, over the generated
 * setup.py, which keeps the metadata (the generator writes no pyproject.toml for this schema).
 */
const PYPROJECT = (setuptools: string): string => `[build-system]
requires = ["${setuptools}"]
build-backend = "setuptools.build_meta"
`;

/** Runs `work` for each item, at most `limit` at a time. */
async function inPool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Checks that a runtime's binary is the Node.js its package says: its release URLs name the version. */
function assertRuntimeVersion(binary: Buffer, runtime: NodeRuntime): void {
  const url = `/release/v${runtime.version}/node-v${runtime.version}`;
  if (!binary.includes(url))
    throw new Error(
      `${runtime.name}@${runtime.version}'s executable is not Node.js v${runtime.version} (no ${url} in it)`,
    );
}

/** The tools the plugin's executables need, found or installed before any is built. */
interface PluginTools {
  /** Only when a macOS executable is built. */
  rcodesign: string | undefined;
  /** Each runtime's package tarball, by `name@version`. */
  tarballs: Map<string, string>;
}

/** Builds each of `targets`' executable from `bundle`, and its tarball, into `out` (see the file comment). */
async function buildPlugins(
  targets: readonly ReleaseTarget[],
  bundle: string,
  release: { version: string; epoch: number; out: string; work: string },
  tools: PluginTools,
  log: ProgressLog,
): Promise<void> {
  const { version, out, work } = release;
  const built = targets.filter((target): target is BuiltTarget => "runtime" in target);
  const runtimeOf = (target: BuiltTarget): NodeRuntime => findRuntime(target.runtime);

  // A blob for each runtime version, written by a Node.js of that version.
  const blobs = new Map<string, string>();
  for (const target of built) {
    const { version: nodeVersion } = runtimeOf(target);
    if (blobs.has(nodeVersion)) continue;
    const writer = blobWriterFor(nodeVersion);
    const node = await extractRuntime(
      writer,
      tools.tarballs.get(runtimeSpec(writer))!,
      join(work, "blob-writers", writer.version),
    );
    const { stdout } = await run(node, ["--version"]);
    if (stdout.trim() !== `v${writer.version}`)
      throw new Error(`${runtimeSpec(writer)} runs as Node.js ${stdout.trim()}, not v${writer.version}`);
    const blob = join(work, `plugin-${nodeVersion}.blob`);
    await step(log, `Writing the blob with Node.js v${writer.version}`, () =>
      writeSeaBlob(node, bundle, blob),
    );
    blobs.set(nodeVersion, blob);
  }

  // As many at a time as the cores: postject and gzip each keep one busy.
  await inPool(built, availableParallelism(), async (target) => {
    const runtime = runtimeOf(target);
    const platform = platformOf(target);
    const say: ProgressLog = (line) => log(`${platform}: ${line.trim()}`);
    const folder = join(work, platform);
    const name = executableName(target, PLUGIN_EXECUTABLE);
    const executable = join(folder, name);
    await step(
      say,
      `Injecting the blob into Node.js v${runtime.version} (${target.runtime}, postject)`,
      async () => {
        const binary = await extractRuntime(
          runtime,
          tools.tarballs.get(target.runtime)!,
          join(folder, "runtime"),
        );
        const bytes = await readFile(binary);
        assertRuntimeVersion(bytes, runtime);
        await writeFile(executable, target.os === "windows" ? withoutAuthenticode(bytes) : bytes, {
          mode: 0o755,
        });
        await rm(join(folder, "runtime"), { recursive: true, force: true });
        await injectSeaBlob(executable, blobs.get(runtime.version)!, { macho: target.format === "Mach-O" });
        if (target.os === "windows") await writeFile(executable, withPeChecksum(await readFile(executable)));
      },
    );
    if (target.os === "darwin")
      await step(say, "Signing it ad hoc (rcodesign)", () =>
        run(tools.rcodesign!, ["sign", "--binary-identifier", PLUGIN_EXECUTABLE, executable], {
          maxBuffer: 16 * 1024 * 1024,
        }),
      );
    assertExecutable(target, await readFile(executable));
    const tarball = join(out, pluginTarballName(version, platform));
    await step(say, `Packing ${relative(REPOSITORY_ROOT, tarball)}`, () =>
      packTarball(tarball, executable, release.epoch),
    );
    await rm(folder, { recursive: true, force: true });
  });

  for (const target of targets) {
    if (!("sameAs" in target)) continue;
    log(`${platformOf(target)}: ${target.why}`);
    await copyFile(
      join(out, pluginTarballName(version, target.sameAs)),
      join(out, pluginTarballName(version, platformOf(target))),
    );
  }
}

/** Fails unless an executable is what its target needs: format, machine, blob, signature. */
function assertExecutable(target: ReleaseTarget, bytes: Buffer): void {
  const info = inspectExecutable(bytes);
  const platform = platformOf(target);
  if (info.format !== target.format || info.machine !== target.machine)
    throw new Error(
      `${platform}: built a ${describeExecutable(info)} executable, not ${describeExecutable(target)}`,
    );
  if (!info.seaInjected) throw new Error(`${platform}: the executable has no single-executable blob`);
  if (target.format === "Mach-O") {
    const signature = info.codeSignature;
    if (
      signature === undefined ||
      !signature.adHoc ||
      !signature.matches ||
      !signature.inLinkedit ||
      !info.segments.includes("NODE_SEA")
    )
      throw new Error(
        `${platform}: the executable's signature or NODE_SEA segment is missing or wrong: ${JSON.stringify(info)}`,
      );
  }
  if (info.authenticode === true)
    throw new Error(`${platform}: the executable still holds a broken Authenticode signature`);
}

/**
 * The Python SDK's wheel and sdist into `out`, checked by `twine check --strict`; returns the sdist's
 * metadata (PKG-INFO), for the SBOM. setuptools writes the wheel's entries with the release's time
 * (`SOURCE_DATE_EPOCH`) and in a fixed order, but the sdist's with its files' times and a gzip header
 * holding the clock, so the sdist is written again with the release's own archive writer.
 */
async function buildPythonSdk(
  sdk: string,
  out: string,
  python: string,
  release: { version: string; epoch: number },
): Promise<string> {
  const stage = join(sdk, "python");
  await writeFile(join(stage, "pyproject.toml"), PYPROJECT(await pythonToolPin("setuptools")));
  // setup.py takes its long description from a README.md beside it; the generator writes one into the package.
  await copyFile(join(stage, PYTHON_DISTRIBUTION, "README.md"), join(stage, "README.md"));
  await copyFile(join(REPOSITORY_ROOT, "LICENSE"), join(stage, "LICENSE"));
  const env = { ...process.env, SOURCE_DATE_EPOCH: String(release.epoch) };
  // No isolation: the virtual environment already holds the pinned setuptools, and nothing is fetched.
  await run(python, ["-m", "build", "--no-isolation", "--outdir", out, stage], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const sdist = join(out, pythonSdistName(release.version));
  const entries = await readTarGz(sdist);
  await writeTarGz(sdist, entries, release.epoch);
  await run(python, ["-m", "twine", "check", "--strict", sdist, join(out, pythonWheelName(release.version))]);
  const metadata = entries.find(
    (entry) => entry.name.endsWith("/PKG-INFO") && entry.name.split("/").length === 2,
  );
  if (metadata === undefined || !Buffer.isBuffer(metadata.data))
    throw new Error(`${sdist} holds no PKG-INFO`);
  return metadata.data.toString("utf8");
}

/** What a release is built of, when not all of it: for tests and for a look at one platform. */
export interface ReleaseOptions {
  /** The plugin's platforms (`linux-amd64`, ...); every target's by default. */
  platforms?: readonly string[] | undefined;
  /** Where the assets go; `dist/release/v<version>/` by default. */
  out?: string;
  /**
   * The machine's own plugin tarball as `npm run build:plugin` made it, taken for its platform
   * instead of building that again: the same build, when the running Node.js is the target's runtime.
   */
  machinePlugin?: string;
}

/** The targets of `platforms`, with any a shared one is copied from; fails on a platform no target has. */
export function releaseTargets(platforms?: readonly string[]): ReleaseTarget[] {
  if (platforms === undefined) return [...RELEASE_TARGETS];
  const known = RELEASE_TARGETS.map(platformOf);
  const unknown = platforms.filter((p) => !known.includes(p));
  if (unknown.length > 0)
    throw new Error(`no release target for ${unknown.join(", ")}: the targets are ${known.join(", ")}`);
  const wanted = new Set(platforms);
  for (const target of RELEASE_TARGETS)
    if (wanted.has(platformOf(target)) && "sameAs" in target) wanted.add(target.sameAs);
  return RELEASE_TARGETS.filter((target) => wanted.has(platformOf(target)));
}

/** The target `build:plugin` makes on this machine, among `targets`, if its runtime is the one running. */
function machineTarget(targets: readonly ReleaseTarget[]): BuiltTarget | undefined {
  const own = targets.find(
    (target): target is BuiltTarget => "runtime" in target && platformOf(target) === machinePlatform(),
  );
  if (own === undefined) return undefined;
  const runtime = findRuntime(own.runtime);
  if (process.version !== `v${runtime.version}`)
    throw new Error(
      `build:plugin's tarball was made with Node.js ${process.version}, not ${runtime.name}'s v${runtime.version}`,
    );
  return own;
}

/** Builds the release (see the file comment), or the part `options` names, and returns its folder. */
export async function buildRelease(
  log: ProgressLog = () => undefined,
  options: ReleaseOptions = {},
): Promise<string> {
  const version = packageVersion();
  const targets = releaseTargets(options.platforms);
  const out = options.out ?? releaseFolder(version);
  const work = join(out, "..", `.work-v${version}`);
  await rm(out, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  await mkdir(work, { recursive: true });
  const source = await releaseCommit();
  const stamp = rfc3339(source.epoch);
  const toolsDir = join(REPOSITORY_ROOT, "dist", "tools");

  const taken = options.machinePlugin === undefined ? undefined : machineTarget(targets);
  const toBuild = targets.filter((target) => target !== taken);

  // Every tool first, so that a missing one fails the release before minutes of building.
  const signs = toBuild.some((target) => target.os === "darwin" && "runtime" in target);
  const rcodesign = signs ? await ensureRcodesign(log) : undefined;
  const python = await ensurePythonTools(log);
  const toolchain = await runningToolchain(python);
  const offPins = toolchainDifferences(
    { label: "here", toolchain },
    { label: "pinned in scripts/release/toolchain.ts", toolchain: PINNED_TOOLCHAIN },
  );
  if (offPins.length > 0)
    log(
      `Not the pinned toolchain, so some assets may differ from a release built with it: ${offPins.join("; ")}`,
    );
  const releaseGo = await buildReleaseGo(toolsDir, log);
  const needed = new Set<string>();
  for (const target of toBuild) {
    if (!("runtime" in target)) continue;
    const runtime = findRuntime(target.runtime);
    const writer = blobWriterFor(runtime.version);
    needed.add(target.runtime).add(runtimeSpec(writer));
  }
  const tarballs = new Map<string, string>();
  for (const spec of needed) tarballs.set(spec, await fetchRuntime(findRuntime(spec), log));

  // Bundled even when the machine's tarball is taken: the SBOMs list what the bundle holds.
  const bundle = join(work, "plugin.js");
  const bundled = await step(log, "Bundling cli/plugin-executable.ts with esbuild", () =>
    bundlePlugin(PLUGIN_BUILD.entry, bundle, version),
  );
  if (taken !== undefined)
    await copyFile(options.machinePlugin!, join(out, pluginTarballName(version, platformOf(taken))));
  const release = { version, epoch: source.epoch, out, work };
  await buildPlugins(toBuild, bundle, release, { rcodesign, tarballs }, log);

  await step(log, "Packing the npm packages (npm pack)", () => packPackages(out));

  const sdk = join(work, "sdk");
  await generateSdks({ outDir: sdk, toolsDir, version, log });
  const pythonMetadata = await step(
    log,
    "Building the Python SDK's wheel and sdist (python -m build, twine check)",
    () => buildPythonSdk(sdk, out, python, release),
  );
  await step(log, "Laying the Go SDK out as a Go module proxy serves it (goproxy/)", async () => {
    const module = join(sdk, "go");
    // As the go command does for a module below a repository's root that has no licence of its own.
    await copyFile(join(REPOSITORY_ROOT, "LICENSE"), join(module, "LICENSE"));
    const goMod = await readFile(join(module, "go.mod"), "utf8");
    if (!goMod.startsWith(`module ${GO_MODULE}\n`))
      throw new Error(`the Go SDK's go.mod names another module than ${GO_MODULE}`);
    await run(releaseGo, [
      "module",
      "-dir",
      module,
      "-version",
      `v${version}`,
      "-time",
      stamp,
      "-out",
      join(out, "goproxy"),
    ]);
  });
  await step(log, "Zipping the .NET SDK's sources", async () => {
    const zip = dotnetZipName(version);
    await copyFile(join(REPOSITORY_ROOT, "LICENSE"), join(sdk, "dotnet", "LICENSE"));
    await run(releaseGo, [
      "zip",
      "-dir",
      join(sdk, "dotnet"),
      "-prefix",
      zip.replace(/\.zip$/, ""),
      "-time",
      stamp,
      "-out",
      join(out, zip),
    ]);
  });

  await step(log, "Writing the SBOMs (CycloneDX) and toolchain.json", async () => {
    await writeReleaseSboms({
      out,
      version,
      source,
      targets,
      bundled,
      pythonMetadata,
      wheel: pythonWheelName(version),
    });
    await writeToolchainRecord(join(out, TOOLCHAIN_RECORD), { ...source, toolchain });
  });
  await step(log, `Writing ${CHECKSUMS_FILE}`, async () => {
    const lines: string[] = [];
    for (const file of await filesUnder(out)) lines.push(`${await sha256File(join(out, file))}  ${file}`);
    await writeFile(join(out, CHECKSUMS_FILE), `${lines.join("\n")}\n`);
  });
  await rm(work, { recursive: true, force: true });
  return out;
}

/** `12.3 MB`, `4.1 kB`: a size for people. */
function formatSize(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** The release's files with their sizes, one a line, as the command prints them. */
export async function listRelease(folder: string): Promise<string> {
  const lines: string[] = [];
  for (const file of await filesUnder(folder)) {
    const { size } = await stat(join(folder, file));
    lines.push(`${formatSize(size).padStart(10)}  ${file}`);
  }
  return `${relative(REPOSITORY_ROOT, folder)}/\n${lines.join("\n")}\n`;
}

if (require.main === module) {
  const started = performance.now();
  // `--platform linux-amd64` (repeatable) builds the plugin of those platforms only.
  const { values } = parseArgs({ options: { platform: { type: "string", multiple: true } } });
  /**
   * The Go SDK committed on HEAD and tagged `sdk/go/v<version>` in the checkout, generated again
   * (in under a second) since buildRelease removes its work folder.
   */
  const tagTheGoSdk = async (): Promise<void> => {
    const version = packageVersion();
    const sdk = await scratchFolder("release-sdks");
    try {
      await generateSdks({
        outDir: sdk,
        toolsDir: join(REPOSITORY_ROOT, "dist", "tools"),
        version,
        log: toStderr,
      });
      await tagGoSdk({ repository: REPOSITORY_ROOT, sdkGo: join(sdk, "go"), version, log: toStderr });
      // For the release workflow's publish job, which pushes the tag from a checkout of its own.
      await bundleGoSdkTag(REPOSITORY_ROOT, version, join(RELEASE_ROOT, goSdkBundleName(version)));
      toStderr(`Pushing the tag publishes the Go SDK: git push origin ${goSdkTag(version)}`);
    } finally {
      await rm(sdk, { recursive: true, force: true });
    }
  };
  buildRelease(toStderr, { platforms: values.platform })
    .then(async (folder) => {
      process.stdout.write(await listRelease(folder));
      // Only a release of every platform is one to publish.
      if (values.platform === undefined) await tagTheGoSdk();
      else toStderr(`A release of some platforms only: the Go SDK is not tagged.`);
      toStderr(`The release took ${formatDuration(performance.now() - started)}.`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
