/**
 * A Pulumi command cut off as a lost CI runner cuts it: its process group and every process it
 * started killed with SIGKILL mid-run, and what the state holds afterwards. `cli-recover` (the
 * dynamic face) and `cli-recover-plugin` (the plugin's executable) share it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

import type { UserSession } from "./user-path";

/**
 * Kills with SIGKILL every process whose environment carries `marker`: Pulumi starts its plugins in
 * process groups of their own, so killing the CLI's group leaves them running.
 */
async function killMarked(marker: string): Promise<number> {
  let killed = 0;
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const environ = await readFile(join("/proc", pid, "environ"), "latin1").catch(() => "");
    if (!environ.split("\0").includes(marker)) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed += 1;
    } catch {
      // It ended meanwhile.
    }
  }
  return killed;
}

/** Runs `command` in the session and kills it, and what it started, once `until` holds. */
export async function cutOff(
  session: UserSession,
  command: string,
  until: () => Promise<boolean>,
): Promise<void> {
  const marker = `RECOVER_TEST_RUN=${process.pid}-${Date.now()}`;
  const stop = new AbortController();
  const run = session.sh(`${marker} ${command}`, true, stop.signal);
  for (let i = 0; i < 600 && !(await until()); i += 1) await new Promise((r) => setTimeout(r, 100));
  // The proxy reports a request before forwarding it: let the last one reach the server.
  await new Promise((r) => setTimeout(r, 300));
  stop.abort();
  await run;
  await killMarked(marker);
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
