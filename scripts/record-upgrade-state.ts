#!/usr/bin/env node
/**
 * `npm run record:upgrade-state`: records what a release leaves behind for the upgrade test
 * (test/e2e/cli-upgrade.test.ts) to replay against newer code, in `test/fixtures/upgrade/<version>/`:
 *
 * - `state.json`: `pulumi stack export` of the fixture program's stack, brought up by this checkout's
 *   packed package with the Pulumi CLI, as a user's stack is;
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
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parse, stringify } from "yaml";

import { NotificationHandlersClient } from "../sdk/client/client";
import { enginePath, ensureEngine } from "./engine";
import {
  copyExample,
  mustRun,
  packPackages,
  REPOSITORY_ROOT,
  scratchFolder,
  userEnvironment,
} from "./user-project";

/** What the recording and the upgrade test share. */
export const UPGRADE_FIXTURE = {
  /** The program, relative to the repository. */
  program: "test/fixtures/upgrade/program",
  /** The recorded releases' folders, relative to the repository. */
  releases: "test/fixtures/upgrade",
  stack: "upgrade",
  /** Encrypts the fixture's secrets; it protects nothing real. */
  passphrase: "upgrade-fixture",
  /** The reference server's user that owns the handlers. */
  user: "fixture",
  /** The secret config values, so the test can check that none shows in plain text. */
  secrets: {
    slackWebhook: "https://hooks.slack.com/services/T000/B000/UPGRADE",
    teamSlackWebhook: "https://hooks.slack.com/services/T000/B000/TEAM",
  },
  /** The handler that exists before the first up, which the program adopts. */
  adopted: { type: "internal_notification", name: "Status inbox" },
} as const;

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

async function main(): Promise<void> {
  const manifest = JSON.parse(await readFile(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  const out = join(REPOSITORY_ROOT, UPGRADE_FIXTURE.releases, manifest.version);
  const engine = await ensureEngine({ projectRoot: REPOSITORY_ROOT });
  const root = await scratchFolder("record-upgrade");
  try {
    const project = await copyExample({
      source: UPGRADE_FIXTURE.program,
      destination: join(root, "project"),
      packages: await packPackages(join(root, "pack")),
    });
    const env = userEnvironment({
      home: join(root, "home"),
      pathFirst: enginePath(engine),
      extra: {
        PULUMI_HOME: join(root, "home", ".pulumi"),
        PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: UPGRADE_FIXTURE.passphrase,
      },
    });
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
      for (const [name, value] of Object.entries(UPGRADE_FIXTURE.secrets)) {
        await run("pulumi", ["config", "set", "--secret", name], value);
      }
      await run("pulumi", ["up", "--yes", "--skip-preview"]);
      await mkdir(out, { recursive: true });
      await run("pulumi", ["stack", "export", "--file", join(out, "state.json")]);
    } finally {
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");
      await exited;
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
