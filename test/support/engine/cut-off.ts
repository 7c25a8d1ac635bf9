/**
 * A Pulumi command cut off as a lost CI runner cuts it: its process group and every process it
 * started killed with SIGKILL mid-run, or interrupted once as Ctrl-C does; and what the state holds
 * afterwards. `cli-recover-points` (the dynamic provider) and `cli-recover-plugin` (the plugin's
 * executable) share it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

import { expect, onTestFinished } from "vitest";

import { NotificationHandlersClient } from "../../../sdk/client/client";
import type { CommandResult } from "../../../scripts/support/user-project";
import { type FaultProxy, startFaultProxy } from "../servers/fault-proxy";
import { listAll, type UserSession } from "./user-path";

/** The processes whose environment carries `marker`, with their command names. */
async function marked(marker: string): Promise<{ pid: number; command: string }[]> {
  const found: { pid: number; command: string }[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const environ = await readFile(join("/proc", pid, "environ"), "latin1").catch(() => "");
    if (!environ.split("\0").includes(marker)) continue;
    const command = await readFile(join("/proc", pid, "comm"), "utf8").catch(() => "");
    found.push({ pid: Number(pid), command: command.trim() });
  }
  return found;
}

/** Sends `signal` to `pid` (a negative one: its group), unless it ended meanwhile. */
function signalIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // It ended meanwhile.
  }
}

/**
 * Kills with SIGKILL every process whose environment carries `marker`: Pulumi starts its plugins in
 * process groups of their own, so killing the CLI's group leaves them running.
 */
async function killMarked(marker: string): Promise<void> {
  for (const { pid } of await marked(marker)) signalIfAlive(pid, "SIGKILL");
}

/** Waits until `until` holds, checking every 100 ms for up to a minute. */
async function waitFor(until: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600 && !(await until()); i += 1) await new Promise((r) => setTimeout(r, 100));
}

/** A marker for the environment of one command's processes. */
const newMarker = (): string => `RECOVER_TEST_RUN=${process.pid}-${Date.now()}`;

/** Runs `command` in the session and kills it, and what it started, once `until` holds. */
export async function cutOff(
  session: UserSession,
  command: string,
  until: () => Promise<boolean>,
): Promise<void> {
  const marker = newMarker();
  const stop = new AbortController();
  const run = session.sh(`${marker} ${command}`, true, stop.signal);
  await waitFor(until);
  // The proxy reports a request before forwarding it: let the last one reach the server.
  await new Promise((r) => setTimeout(r, 300));
  stop.abort();
  await run;
  await killMarked(marker);
}

/**
 * Runs `command` in the session and, once `until` holds, sends SIGINT once to the Pulumi CLI's process
 * group, as Ctrl-C in a terminal does (the plugins, in groups of their own, do not get it); then calls
 * `then` and lets the command end by itself.
 */
export async function interrupt(
  session: UserSession,
  command: string,
  until: () => Promise<boolean>,
  then: () => void,
): Promise<CommandResult> {
  const marker = newMarker();
  const run = session.sh(`${marker} ${command}`);
  await waitFor(until);
  const cli = (await marked(marker)).find((p) => p.command === "pulumi");
  if (cli === undefined) throw new Error(`no pulumi process runs \`${command}\``);
  // /proc/PID/stat: `PID (COMMAND) STATE PPID PGRP ...`.
  const group = Number(
    (await readFile(join("/proc", String(cli.pid), "stat"), "utf8")).split(") ")[1]?.split(" ")[2],
  );
  if (!(group > 0)) throw new Error(`no process group for pulumi (${cli.pid})`);
  signalIfAlive(-group, "SIGINT");
  then();
  return run;
}

/** The parts of an exported state the recovery tests look at. */
export interface ExportedHandlers {
  // No resources once a destroy emptied the stack.
  deployment: { resources?: { type: string; id?: string }[]; pending_operations?: { type: string }[] };
}

/** The stack's state, as `pulumi stack export` gives it (secrets encrypted). */
export async function exportState(session: UserSession): Promise<ExportedHandlers> {
  return JSON.parse((await session.mustSh("pulumi stack export", false)).stdout) as ExportedHandlers;
}

/** The ids of the handler resources a state holds, in order. */
export function handlerIds(state: ExportedHandlers): number[] {
  return (state.deployment.resources ?? [])
    .filter((r) => r.type.endsWith(":NotificationHandler"))
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
}

/**
 * A local stack `dev` of the session's project whose provider reaches the API through a fault proxy
 * answering every request 0.8 s late (well under the client's timeout), so handlers exist in the API
 * while their creates are still in flight; and a client of the API itself, with the session's key.
 * Both are closed when the test ends.
 */
export async function slowStackForTest(
  s: UserSession,
  key: string,
): Promise<{ client: NotificationHandlersClient; proxy: FaultProxy }> {
  const client = new NotificationHandlersClient({ baseURL: s.url!, apiKey: key, maxRetries: 0 });
  onTestFinished(() => client.close());
  const proxy = await startFaultProxy(s.url!, { rate: 1, kinds: ["slow"], slowMs: 800 });
  onTestFinished(() => proxy.close());
  await s.mustSh(
    [
      "export PULUMI_CONFIG_PASSPHRASE=local-only",
      "pulumi login --local",
      "pulumi stack init dev",
      `pulumi config set notification-handlers:baseUrl ${proxy.url}`,
      'pulumi config set --secret notification-handlers:apiKey "$KEY"',
    ].join("\n"),
  );
  return { client, proxy };
}

/**
 * Whether the proxy has forwarded 4 slowed requests of `method`: watched at the proxy, not by polling
 * the API, which would spend the key's rate limit.
 */
export const forwarded = (proxy: FaultProxy, method: string) => (): Promise<boolean> =>
  Promise.resolve(proxy.faults.filter((f) => f.startsWith(`fault slow ${method} `)).length >= 4);

/** The creates a cut-off up left pending in `state`: some, and creates only. */
export function pendingCreates(state: ExportedHandlers): { type: string }[] {
  const pending = state.deployment.pending_operations ?? [];
  expect(pending.length).toBeGreaterThan(0);
  expect(pending.every((p) => p.type === "creating")).toBe(true);
  return pending;
}

/**
 * Checks what `recover` printed: nothing refused, a line per pending operation and the summary, and
 * the `made` handlers of the API all in the state (`recorded` by the cut-off up, or imported). The
 * lines of the imported ones.
 */
export function recoveredLines(stdout: string, made: number, recorded: number, pending: number): string[] {
  const lines = stdout.trim().split("\n");
  const imported = lines.filter((l) => l.startsWith("imported "));
  expect(lines.filter((l) => l.startsWith("refused "))).toEqual([]);
  expect(recorded + imported.length).toBe(made);
  expect(lines.length).toBe(pending + 1);
  expect(lines.at(-1)).toMatch(/^state written \(\d+ imported, \d+ cleared\)$/);
  return imported;
}

/**
 * After recovery and an up: the API holds `count` handlers of distinct names, the state exactly
 * those (no duplicate, no orphan) and no pending operation, and the key is in neither the state nor
 * anything printed.
 */
export async function expectConverged(
  s: UserSession,
  client: NotificationHandlersClient,
  count: number,
  key: string,
): Promise<void> {
  const handlers = await listAll(client);
  expect(handlers).toHaveLength(count);
  expect(new Set(handlers.map((h) => h.name)).size).toBe(count);
  const after = await exportState(s);
  expect(handlerIds(after)).toEqual(handlers.map((h) => h.id));
  expect(after.deployment.pending_operations ?? []).toEqual([]);
  expect(JSON.stringify(after).includes(key), "the API key in the state").toBe(false);
  expect(s.transcript.join("\n").includes(key), "the API key in the output").toBe(false);
}
