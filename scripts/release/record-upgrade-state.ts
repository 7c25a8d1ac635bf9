#!/usr/bin/env node
/**
 * `npm run record:upgrade-state [-- <program>...]`: records what a release leaves behind for the
 * upgrade test (test/e2e/cli-upgrade.test.ts) to replay against newer code: the stack of each program
 * of {@link UPGRADE_FIXTURE} (a TypeScript one, and a Pulumi YAML one run through the plugin), or of
 * those named, brought up by this checkout's packed package or plugin with the Pulumi CLI, as a user's
 * stack is, into `test/fixtures/upgrade/<version><suffix>/`. The YAML program names the plugin's
 * version and GitHub address as README.md says, and the engine downloads this checkout's plugin from
 * a loopback stand-in of the release (scripts/release/stand-in.ts), so its state is a user's:
 *
 * - `state.json`: `pulumi stack export` of the stack;
 * - `Pulumi.upgrade.yaml`: the stack's config with its encryption salt and secret values (encrypted
 *   with {@link UPGRADE_FIXTURE}'s passphrase), without the site's address and API key, which the
 *   test sets for the server it starts;
 * - `server.db`: the reference server's database with the handlers that state points at, and no
 *   usable API key (the test makes a new one for the same user).
 *
 * Run it on the release's own commit, once; the files are never edited by hand.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { parse, stringify } from "yaml";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { buildPlugin, packageVersion, PLUGIN_BUILD } from "./build-plugin";
import { type Engine, enginePath, ensureEngine } from "../engine/engine";
import { toStderr } from "../support/progress";
import { type PluginRelease, startPluginRelease } from "./stand-in";
import {
  applyEnvironment,
  copyExample,
  mustRun,
  type PackageSpecs,
  packPackages,
  REPOSITORY_ROOT,
  scratchFolder,
  userEnvironment,
} from "../support/user-project";
import { nameRecordedVersion, UPGRADE_FIXTURE, type UpgradeProgram } from "./upgrade-fixture";

/** The keys the test sets itself: the address and key of the server it starts. */
const CONNECTION_KEYS = ["notification-handlers:baseUrl", "notification-handlers:apiKey"];

/** Starts `bin serve` on port 0 and resolves with the process and its address. */
async function startServer(
  bin: string,
  db: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(bin, ["serve", "--port", "0", "--db", db], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^listening on (\S+)/.exec(line);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
  });
  return { child, url };
}

/** What every program's recording needs: the engine, the packed packages, the plugin's release. */
interface Recorder {
  engine: Engine;
  packages: PackageSpecs;
  /** The plugin's tarball in a folder named by the release's tag, `v<version>`. */
  pluginRelease: string;
}

/** Brings `program`'s stack up in a scratch folder under `root`, and records it into `out`. */
async function record(program: UpgradeProgram, recorder: Recorder, root: string, out: string): Promise<void> {
  const project = await copyExample({
    source: program.source,
    destination: join(root, "project"),
    packages: recorder.packages,
    ...(program.pins === undefined ? {} : { pins: program.pins }),
  });
  let release: PluginRelease | undefined;
  if (program.downloadsPlugin === true) {
    await nameRecordedVersion(project, packageVersion());
    // npm's registry for the server's dependencies.
    release = await startPluginRelease(recorder.pluginRelease, join(root, "stand-ins"), [
      "registry.npmjs.org:443",
    ]);
  }
  const env = userEnvironment({
    home: join(root, "home"),
    pathFirst: enginePath(recorder.engine),
    extra: {
      PULUMI_HOME: join(root, "home", ".pulumi"),
      PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: UPGRADE_FIXTURE.passphrase,
    },
  });
  applyEnvironment(env, release?.env ?? {});
  await mkdir(join(root, "state"), { recursive: true });
  const run = (command: string, args: string[], input?: string): Promise<{ stdout: string }> =>
    mustRun(command, args, { cwd: project, env, ...(input === undefined ? {} : { input }) });

  await run("npm", ["install", "--no-audit", "--no-fund"]);
  const serverBin = join(project, "node_modules", ".bin", "notification-handlers-server");
  const db = join(project, ".data", "server.db");
  const key = (
    await run(serverBin, ["keys", "create", "--db", db, "--user", UPGRADE_FIXTURE.user])
  ).stdout.trim();
  const server = await startServer(serverBin, db, project, env);
  try {
    const client = new NotificationHandlersClient({ baseURL: server.url, apiKey: key });
    await client.notificationHandlers.create(UPGRADE_FIXTURE.adopted);
    await client.close();

    await run("pulumi", ["stack", "init", UPGRADE_FIXTURE.stack]);
    await run("pulumi", ["config", "set", CONNECTION_KEYS[0]!, server.url]);
    await run("pulumi", ["config", "set", "--secret", CONNECTION_KEYS[1]!], key);
    for (const [name, value] of Object.entries(program.secrets)) {
      await run("pulumi", ["config", "set", "--secret", name], value);
    }
    await run("pulumi", ["up", "--yes", "--skip-preview"]);
    release?.expectServed();
    await mkdir(out, { recursive: true });
    await run("pulumi", ["stack", "export", "--file", join(out, "state.json")]);
  } finally {
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    await exited;
    await release?.close();
  }
  // The database as the server left it on shutdown (its write-ahead log folded in).
  await copyFile(db, join(out, "server.db"));

  const configFile = `Pulumi.${UPGRADE_FIXTURE.stack}.yaml`;
  const config = parse(await readFile(join(project, configFile), "utf8")) as {
    config: Record<string, unknown>;
  };
  for (const name of CONNECTION_KEYS) delete config.config[name];
  await writeFile(join(out, configFile), stringify(config));
  process.stdout.write(`recorded ${out}\n`);
}

async function main(): Promise<void> {
  const version = packageVersion();
  const programs: [string, UpgradeProgram][] = Object.entries(UPGRADE_FIXTURE.programs);
  const named = process.argv.slice(2);
  const unknown = named.filter((name) => !programs.some(([known]) => known === name));
  if (unknown.length > 0)
    throw new Error(`no program ${unknown.join(", ")}: ${programs.map(([name]) => name).join(", ")}`);
  const engine = await ensureEngine({ projectRoot: REPOSITORY_ROOT, yaml: true });
  const root = await scratchFolder("record-upgrade");
  try {
    const pluginBuild = { ...PLUGIN_BUILD, outDir: join(root, "release", `v${version}`) };
    const recorder = {
      engine,
      packages: await packPackages(join(root, "pack")),
      pluginRelease: dirname(await buildPlugin(pluginBuild, toStderr)),
    };
    for (const [name, program] of programs.filter(([name]) => named.length === 0 || named.includes(name))) {
      const out = join(REPOSITORY_ROOT, UPGRADE_FIXTURE.releases, `${version}${program.suffix}`);
      await record(program, recorder, join(root, name), out);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
