#!/usr/bin/env node
/**
 * `npm run demo`: the whole story against a fresh reference server.
 *
 * Starts the server with a file database, creates an API key, runs `pulumi up` on
 * examples/quickstart, prints the handlers as the API has them, then edits one and deletes another
 * behind Pulumi's back, shows `pulumi preview` finding the drift and `pulumi up` repairing it, and
 * prints the final state.
 *
 * The quickstart runs as a user runs it: the package packed, installed into a copy of the example
 * outside the repository, and the Pulumi CLI run in that folder, with an installed Node.js language
 * host or else the project's own.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";

import { fieldByName } from "../../sdk/client/domain/catalog";
import { NotificationHandlersClient } from "../../sdk/client/client";
import { type Engine, enginePath, ensureEngine } from "../engine/engine";
import {
  type CommandResult,
  copyExample,
  mustRun,
  packPackages,
  scratchFolder,
  userEnvironment,
} from "../support/user-project";

const ROOT = resolve(__dirname, "..", "..", "..");
const SERVER = join(ROOT, "server", "dist", "server", "main.js");

let stepNumber = 0;
function step(title: string): void {
  stepNumber++;
  process.stdout.write(`\n\x1b[1m== ${stepNumber}. ${title}\x1b[0m\n`);
}

async function startServer(db: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER, "serve", "--port", "0", "--db", db], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once("exit", (code) => reject(new Error(`the server exited with code ${code}`)));
    lines.once("line", (line) => {
      const match = /^listening on (\S+)/.exec(line);
      if (match?.[1] !== undefined) resolveUrl(match[1]);
      else reject(new Error(`unexpected first line from the server: ${line}`));
    });
  });
  return { url, child };
}

async function printHandlers(client: NotificationHandlersClient): Promise<void> {
  const rows: string[][] = [["id", "type", "name", "enabled", "settings"]];
  for await (const h of client.notificationHandlers.list({
    order_by: "notification_handler_id",
    order_type: "ASC",
  })) {
    const settings = Object.entries(h.settings)
      .map(([k, v]) => `${k}=${fieldByName(k)?.secret === true ? "[secret]" : v}`)
      .join(" ");
    rows.push([String(h.id), h.type ?? "(none)", h.name, h.is_enabled ? "yes" : "no", settings]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const row of rows)
    process.stdout.write(`   ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ")}\n`);
}

type StackConfig = Record<string, string | { secret: string }>;

/** The quickstart as a stack the demo drives with Pulumi commands. */
interface Quickstart {
  /** Runs `pulumi <args>`, printing the output. */
  run(args: string[]): Promise<void>;
  /** The stack's outputs: the handlers' ids. */
  outputs(): Promise<Record<string, number>>;
  dispose(): Promise<void>;
}

const indent = (text: string): string => text.replace(/^(?=.)/gm, "   ");

/**
 * The quickstart as a user runs it: the package packed with `npm pack`, installed into a copy of
 * examples/quickstart outside the repository, and the Pulumi CLI run in that folder.
 */
async function cliQuickstart(engine: Engine, config: StackConfig): Promise<Quickstart> {
  step("Copy examples/quickstart out of the repository and install the packed package into it");
  const root = await scratchFolder("demo");
  const project = await copyExample({
    source: "examples/quickstart",
    destination: join(root, "quickstart"),
    packages: await packPackages(join(root, "pack")),
  });
  await mkdir(join(root, "state"));
  const env = userEnvironment({
    home: join(root, "home"),
    pathFirst: enginePath(engine),
    extra: {
      PULUMI_HOME: join(root, "home", ".pulumi"),
      PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "demo-only",
    },
  });
  const started = Date.now();
  await mustRun("npm", ["install"], { cwd: project, env });
  process.stdout.write(`   ${project}: npm install took ${Math.round((Date.now() - started) / 1000)} s\n`);
  const pulumi = (args: string[], print: boolean): Promise<CommandResult> =>
    mustRun("pulumi", args, {
      cwd: project,
      env,
      ...(print ? { onOutput: (text: string) => process.stdout.write(indent(text)) } : {}),
    });
  await pulumi(["stack", "init", "dev"], false);
  for (const [key, value] of Object.entries(config)) {
    if (typeof value === "string") await pulumi(["config", "set", key, value], false);
  }
  // Secret values go in on standard input, so they never appear in a process listing.
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== "string")
      await mustRun("pulumi", ["config", "set", "--secret", key], { cwd: project, env, input: value.secret });
  }
  process.stdout.write("   stack dev configured (the API key and the webhook URL as secrets)\n");
  return {
    run: async (args) => {
      await pulumi(args, true);
    },
    outputs: async () =>
      JSON.parse((await pulumi(["stack", "output", "--json"], false)).stdout) as Record<string, number>,
    dispose: async () => {
      await pulumi(["destroy", "--yes"], false);
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  step("Make the Pulumi engine available");
  const engine = await ensureEngine({
    projectRoot: ROOT,
    log: (line) => process.stdout.write(`   ${line}\n`),
  });
  process.stdout.write(`   pulumi ${engine.version} (${engine.source}) in ${engine.binDir}\n`);
  const host = engine.languageHosts.nodejs;
  process.stdout.write(
    `   pulumi-language-nodejs: ${host.source === "installed" ? "the installed one" : "the project's own"}, in ${host.dir}\n`,
  );

  const data = await mkdtemp(join(tmpdir(), "notification-handlers-demo-"));
  const db = join(data, "demo.db");
  step("Start the reference server with a file database");
  const server = await startServer(db);
  process.stdout.write(`   listening on ${server.url}, database ${db}\n`);

  try {
    step("Create an API key");
    const { stdout } = await promisify(execFile)(process.execPath, [
      SERVER,
      "keys",
      "create",
      "--db",
      db,
      "--user",
      "demo",
    ]);
    const apiKey = stdout.trim();
    process.stdout.write(`   created a key for user "demo"; it goes into the stack config as a secret\n`);

    const client = new NotificationHandlersClient({ baseURL: server.url, apiKey });
    const config: Record<string, string | { secret: string }> = {
      "notification-handlers:baseUrl": server.url,
      "notification-handlers:apiKey": { secret: apiKey },
      oncallEmail: "oncall@example.com",
      slackWebhook: { secret: "https://hooks.slack.com/services/T000/B000/demo-secret" },
      pagerPhone: "+15551234567",
    };
    const quickstart = await cliQuickstart(engine, config);
    try {
      step("pulumi up: create the quickstart's handlers");
      await quickstart.run(["up", "--yes"]);
      const ids = await quickstart.outputs();

      step("The handlers as the API has them");
      await printHandlers(client);

      step("Behind Pulumi's back: rename the on-call email handler and delete the pager in the API");
      await client.notificationHandlers.update(ids.oncallId!, { name: "Renamed in the web UI" });
      await client.notificationHandlers.delete(ids.pagerId!);
      await printHandlers(client);

      step("pulumi preview --diff: the drift shows without --refresh");
      await quickstart.run(["preview", "--diff"]);

      step("pulumi up: repair it");
      await quickstart.run(["up", "--yes"]);

      step("The final state, as the API has it");
      await printHandlers(client);

      step("pulumi preview --expect-no-changes: nothing left to change");
      await quickstart.run(["preview", "--expect-no-changes"]);
    } finally {
      await quickstart.dispose();
      await client.close();
    }
  } finally {
    server.child.kill("SIGTERM");
    await rm(data, { recursive: true, force: true });
  }
  process.stdout.write(`\nDone in ${Math.round((Date.now() - started) / 1000)} s.\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
