#!/usr/bin/env node
/**
 * `npm run demo`: the whole story against a fresh reference server.
 *
 * Starts the server with a file database, creates an API key, runs `pulumi up` on
 * examples/quickstart, prints the handlers as the API has them, then edits one and deletes another
 * behind Pulumi's back, shows `pulumi preview` finding the drift and `pulumi up` repairing it, and
 * prints the final state.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";

import { fieldByName } from "../sdk/catalog";
import { NotificationHandlersClient } from "../sdk/client";
import { ensureEngine } from "./engine";
import { createOfflineStack } from "./offline-stack";

const ROOT = resolve(__dirname, "..", "..");
const SERVER = join(ROOT, "dist", "server", "main.js");
const QUICKSTART = join(ROOT, "dist", "examples", "quickstart", "index.js");

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

async function main(): Promise<void> {
  const started = Date.now();
  step("Make the Pulumi engine available");
  const engine = await ensureEngine({
    projectRoot: ROOT,
    log: (line) => process.stdout.write(`   ${line}\n`),
  });
  process.stdout.write(`   pulumi ${engine.version} (${engine.source}) in ${engine.binDir}\n`);

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
    const offline = await createOfflineStack({
      binDir: engine.binDir,
      workRoot: join(ROOT, ".demo-work"),
      projectName: "quickstart",
      program: () => {
        // The quickstart, compiled; loaded afresh for each operation like a program run by the CLI.
        delete require.cache[QUICKSTART];
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- examples are programs, not modules
        return Promise.resolve(require(QUICKSTART) as Record<string, unknown>);
      },
      config: {
        "notification-handlers:baseUrl": server.url,
        "notification-handlers:apiKey": { secret: apiKey },
        "quickstart:oncallEmail": "oncall@example.com",
        "quickstart:slackWebhook": { secret: "https://hooks.slack.com/services/T000/B000/demo-secret" },
        "quickstart:pagerPhone": "+15551234567",
      },
    });
    const { stack } = offline;
    const print = { onOutput: (s: string) => process.stdout.write(s.replace(/^/gm, "   ")) };
    try {
      step("pulumi up: create the quickstart's handlers");
      const up = await stack.up(print);
      const ids = {
        oncall: up.outputs.oncallId?.value as number,
        pager: up.outputs.pagerId?.value as number,
      };

      step("The handlers as the API has them");
      await printHandlers(client);

      step("Behind Pulumi's back: rename the on-call email handler and delete the pager in the API");
      await client.notificationHandlers.update(ids.oncall, { name: "Renamed in the web UI" });
      await client.notificationHandlers.delete(ids.pager);
      await printHandlers(client);

      step("pulumi preview: the drift shows without --refresh");
      await stack.preview(print);

      step("pulumi up: repair it");
      await stack.up(print);

      step("The final state, as the API has it");
      await printHandlers(client);

      step("pulumi up again: nothing to change");
      const last = await stack.up(print);
      process.stdout.write(`   ${JSON.stringify(last.summary.resourceChanges)}\n`);
    } finally {
      await offline.dispose();
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
