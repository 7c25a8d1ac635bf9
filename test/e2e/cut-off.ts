/**
 * A Pulumi command cut off as a lost CI runner cuts it: its process group and every process it
 * started killed with SIGKILL mid-run, or interrupted once as Ctrl-C does; and what the state holds
 * afterwards. `cli-recover`, `cli-recover-points` (the dynamic face) and `cli-recover-plugin` (the
 * plugin's executable) share it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

import type { CommandResult } from "../../scripts/user-project";
import type { UserSession } from "./user-path";

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
  deployment: { resources: { type: string; id?: string }[]; pending_operations?: { type: string }[] };
}

/** The stack's state, as `pulumi stack export` gives it (secrets encrypted). */
export async function exportState(session: UserSession): Promise<ExportedHandlers> {
  return JSON.parse((await session.mustSh("pulumi stack export", false)).stdout) as ExportedHandlers;
}

/** The ids of the handler resources a state holds, in order. */
export function handlerIds(state: ExportedHandlers): number[] {
  return state.deployment.resources
    .filter((r) => r.type.endsWith(":NotificationHandler"))
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
}
