/**
 * `npm run bench:release`: what a user's first contact with a release costs. Reads a release folder
 * (`dist/release/v<version>/` as `npm run release` writes it, or `--release DIR`) and prints each
 * plugin tarball's size and its executable's, this machine's executable's start (spawn to port,
 * median of `--starts N`, default 20: the release's blobs carry no code cache), then, over
 * `--rounds N` (default 3), the time from an
 * empty PULUMI_HOME to the first `pulumi up` of a one-handler Pulumi YAML program done, the engine
 * downloading this machine's plugin from the release served on 127.0.0.1. Beside it, each in a
 * fresh PULUMI_HOME of its own: `pulumi plugin install` of the same plugin from the same release,
 * timed alone, then the same up with the plugin installed. The reference server runs as for
 * `bench:engine` (`counting-server.ts`).
 *
 * It builds no release, and prints figures without failing on a missed target.
 */
import { createReadStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { basename, delimiter, dirname, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createGunzip } from "node:zlib";

import {
  HANDLER_RESOURCE_TOKEN,
  PACKAGE_NAME,
  pluginDownloadUrl,
  PLUGIN_EXECUTABLE,
  REPOSITORY_URL,
} from "../provider/tokens";
import { type Engine, enginePath, ensureEngine } from "../scripts/engine/engine";
import { machinePlatform, pluginTarballName } from "../scripts/release/build-plugin";
import { releaseFolder } from "../scripts/release/release";
import { REPOSITORY_ROOT, applyEnvironment, mustRun } from "../scripts/support/user-project";
import {
  pluginDownloadEnvironment,
  startRefusingProxy,
  startReleaseServer,
} from "../scripts/release/stand-in";
import { loadAverage, out } from "./measure";
import { type CountingServer, startCountingServer } from "./counting-server";
import { median } from "./plugin-calls";
import { startPlugin } from "./plugin-start";

/** The longest one command may take; a first up on a busy machine takes tens of seconds. */
const COMMAND_TIMEOUT_MS = 10 * 60 * 1000;

/** The name and size of the executable a plugin tarball holds, from its first header alone. */
async function executableOf(tarball: string): Promise<{ name: string; bytes: number }> {
  const source = createReadStream(tarball);
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of source.pipe(createGunzip())) {
      head = Buffer.concat([head, chunk as Buffer]);
      if (head.length >= 512) break;
    }
  } finally {
    source.destroy();
  }
  const field = (offset: number, length: number): string =>
    head.toString("latin1", offset, offset + length).replace(/\0[\s\S]*$/, "");
  // A tar header: the name at 0 (100 bytes), the size in octal at 124 (12), the type at 156 (a file: "0").
  const type = field(156, 1);
  if (head.length < 512 || (type !== "0" && type !== ""))
    throw new Error(`${basename(tarball)} does not start with a file`);
  return { name: field(0, 100), bytes: parseInt(field(124, 12).trim(), 8) };
}

/** A folder of the checkout relative to its root, any other whole. */
function shortPath(folder: string): string {
  const inside = relative(REPOSITORY_ROOT, folder);
  return inside === "" || inside.startsWith("..") ? folder : inside;
}

/** `--release DIR`'s folder, its version (the folder is named by the tag) and its plugin tarballs. */
async function readRelease(folder: string): Promise<{ version: string; tarballs: Map<string, string> }> {
  const make =
    `make one with \`npm run release\` (every platform) or ` +
    `\`npm run release -- --platform ${machinePlatform()}\` (this machine's alone), or name one with --release DIR`;
  const shown = shortPath(folder);
  if (!existsSync(folder)) throw new Error(`no release in ${shown}: ${make}`);
  const version = /^v(\d[\w.+-]*)$/.exec(basename(folder))?.[1];
  if (version === undefined)
    throw new Error(
      `${shown} is not named v<version>, as npm run release names a release's folder by its tag`,
    );
  const tarballs = new Map<string, string>();
  const prefix = `${PLUGIN_EXECUTABLE}-v${version}-`;
  for (const name of (await readdir(folder)).sort())
    if (name.startsWith(prefix) && name.endsWith(".tar.gz"))
      tarballs.set(name.slice(prefix.length, -".tar.gz".length), join(folder, name));
  if (tarballs.size === 0) throw new Error(`no plugin tarball in ${shown}: ${make}`);
  if (!tarballs.has(machinePlatform()))
    throw new Error(`${shown} has no ${pluginTarballName(version)}, this machine's plugin: ${make}`);
  return { version, tarballs };
}

/** The one-handler program as docs/plugin.md has a YAML user write it: version and address in the options. */
const program = (version: string): string =>
  [
    "name: first-up",
    "runtime: yaml",
    "resources:",
    "  oncall:",
    `    type: ${HANDLER_RESOURCE_TOKEN}`,
    "    properties: { type: email, name: On-call email, email: oncall@example.com }",
    "    options:",
    `      version: ${version}`,
    `      pluginDownloadURL: ${pluginDownloadUrl(version)}`,
    "",
  ].join("\n");

/** Runs the CLI in a project with a stack, a PULUMI_HOME that holds no plugin, and an account of its own. */
type User = (args: string[]) => Promise<number>;

interface Setup {
  engine: Engine;
  server: CountingServer;
  version: string;
  /** The variables that send the plugin's download to the release stand-in and the rest to the proxy. */
  download: Record<string, string | undefined>;
}

async function freshUser(setup: Setup, dir: string): Promise<User> {
  const home = join(dir, "pulumi-home");
  const project = join(dir, "project");
  const state = join(dir, "state");
  for (const folder of [home, project, state]) await mkdir(folder, { recursive: true });
  await writeFile(join(project, "Pulumi.yaml"), program(setup.version));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [...enginePath(setup.engine), process.env.PATH ?? ""].join(delimiter),
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: "bench-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // The provider's settings from the environment, as the docs allow: the stack needs no config.
    NOTIFICATION_HANDLERS_BASE_URL: setup.server.url,
    NOTIFICATION_HANDLERS_API_KEY: await setup.server.newKey(),
  };
  delete env.NODE_OPTIONS;
  applyEnvironment(env, setup.download);
  const user: User = async (args) => {
    const started = performance.now();
    await mustRun("pulumi", [...args, "--non-interactive"], {
      cwd: project,
      env,
      timeoutMs: COMMAND_TIMEOUT_MS,
    });
    return performance.now() - started;
  };
  await user(["stack", "init", "bench"]);
  return user;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      release: { type: "string" },
      rounds: { type: "string", default: "3" },
      starts: { type: "string", default: "20" },
    },
  });
  const [rounds, starts] = [Number(values.rounds), Number(values.starts)];
  for (const [option, value] of [
    ["rounds", rounds],
    ["starts", starts],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`--${option} takes a whole number from 1 (got ${values[option]})`);
  const folder = values.release === undefined ? releaseFolder() : resolve(values.release);
  const { version, tarballs } = await readRelease(folder);

  out(
    `## The plugin tarballs of ${shortPath(folder)}\n\n| platform | tarball | executable |\n|---|---|---|\n`,
  );
  for (const [platform, tarball] of tarballs) {
    const executable = await executableOf(tarball);
    out(
      `| ${platform} | ${mib((await stat(tarball)).size)} | ${mib(executable.bytes)} (\`${executable.name}\`) |\n`,
    );
  }

  const work = await mkdtemp(join(tmpdir(), "notification-handlers-bench-release-"));
  await mustRun("tar", ["-xzf", tarballs.get(machinePlatform())!, "-C", work], {
    cwd: work,
    env: process.env,
  });
  const startRuns = [];
  for (let i = 0; i < starts; i++) startRuns.push(await startPlugin(join(work, PLUGIN_EXECUTABLE)));
  await rm(join(work, PLUGIN_EXECUTABLE));
  out(
    `\n## The ${machinePlatform()} executable's start, with an empty environment (load average ${loadAverage()})\n\n` +
      `| figure | value |\n|---|---|\n` +
      `| start to port (median of ${starts}) | ${median(startRuns.map((r) => r.startMs)).toFixed(0)} ms |\n` +
      `| resident memory at the port | ${mib(median(startRuns.map((r) => r.idleMiB)) * 2 ** 20)} |\n`,
  );

  const log = (line: string): void => {
    process.stderr.write(`[bench] ${line}\n`);
  };
  const engine = await ensureEngine({ projectRoot: REPOSITORY_ROOT, log, yaml: true });
  const tarballBytes = (await stat(tarballs.get(machinePlatform())!)).size;
  const download = `GET /releases/download/v${version}/${pluginTarballName(version)}`;
  const release = await startReleaseServer(dirname(folder), join(work, "tls"));
  const proxy = await startRefusingProxy();
  const server = await startCountingServer(0);
  const setup: Setup = { engine, server, version, download: pluginDownloadEnvironment(release, proxy) };
  /** Runs `step`, then fails unless the release served the plugin's tarball `downloads` times meanwhile. */
  const expectDownloads = async <T>(downloads: number, step: () => Promise<T>): Promise<T> => {
    const before = release.requests.length;
    const result = await step();
    const served = release.requests.slice(before).map((r) => `${r.method} ${r.target}`);
    if (served.length !== downloads || served.some((r) => r !== download))
      throw new Error(
        `the release served ${JSON.stringify(served)}, not the plugin's tarball ${downloads} time(s)`,
      );
    if (proxy.requests.length > 0)
      throw new Error(
        `a request left the machine: ${proxy.requests.map((r) => `${r.method} ${r.target}`).join(", ")}`,
      );
    return result;
  };

  const firstUps: number[] = [];
  const installs: number[] = [];
  const installedUps: number[] = [];
  out(
    `\n## The first \`pulumi up\` of a one-handler Pulumi YAML program, ${rounds} rounds ` +
      `(pulumi ${engine.version}, the plugin's tarball for ${machinePlatform()}: ${mib(tarballBytes)})\n\n` +
      `load average at the start ${loadAverage()}\n\n` +
      `| round | first up, empty PULUMI_HOME | \`pulumi plugin install\` | up, plugin installed | first up minus up installed | load (1 min) |\n` +
      `|---|---|---|---|---|---|\n`,
  );
  try {
    for (let round = 1; round <= rounds; round++) {
      const firstUp = async (): Promise<void> => {
        const user = await freshUser(setup, join(work, `round${round}-first`));
        firstUps.push(await expectDownloads(1, () => user(["up", "--yes"])));
      };
      const installThenUp = async (): Promise<void> => {
        const user = await freshUser(setup, join(work, `round${round}-installed`));
        // As docs/plugin.md has a user install it; the engine's override sends it to the stand-in.
        const address = `${REPOSITORY_URL}/releases/download/v${version}`;
        installs.push(
          await expectDownloads(1, () =>
            user(["plugin", "install", "resource", PACKAGE_NAME, version, "--server", address]),
          ),
        );
        installedUps.push(await expectDownloads(0, () => user(["up", "--yes"])));
      };
      // Taking turns at going first, so drift in the machine's speed falls on both alike.
      for (const measure of round % 2 === 1 ? [firstUp, installThenUp] : [installThenUp, firstUp])
        await measure();
      const [first, install, installed] = [firstUps.at(-1)!, installs.at(-1)!, installedUps.at(-1)!];
      out(
        `| ${round} | ${seconds(first)} | ${seconds(install)} | ${seconds(installed)} | ${seconds(first - installed)} | ` +
          `${loadavg()[0]?.toFixed(2)} |\n`,
      );
      for (const kind of ["first", "installed"])
        await rm(join(work, `round${round}-${kind}`), { recursive: true, force: true });
    }
  } finally {
    await server.close();
    await release.close();
    await proxy.close();
    await rm(work, { recursive: true, force: true });
  }

  const install = median(installs);
  const installedUp = median(installedUps);
  out(
    `\n### Medians of ${rounds} rounds (load average at the end ${loadAverage()})\n\n| figure | time |\n|---|---|\n` +
      `| first up from an empty PULUMI_HOME, the plugin's download included | ${seconds(median(firstUps))} |\n` +
      `| of which the plugin's download and install (first up minus up installed, per round) | ` +
      `${seconds(median(firstUps.map((first, i) => first - installedUps[i]!)))} |\n` +
      `| \`pulumi plugin install\` alone (the CLI's start, the download, the unpacking) | ${seconds(install)}: ` +
      `${mib(tarballBytes)} at ${mib((tarballBytes * 1000) / install)}/s |\n` +
      `| the same up, the plugin installed | ${seconds(installedUp)} |\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
