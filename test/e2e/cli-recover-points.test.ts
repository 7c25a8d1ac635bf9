/**
 * Where a deploy is cut off, on the user's path with a TypeScript program of 6 handlers, each point a
 * stack and an account of its own on one server and one fault proxy, which holds answers to stop the
 * provider at the point wanted:
 *
 * - a create's write handled at the server, its answer held, then kill -9;
 * - the writes answered, the verifying read-back held, then kill -9;
 * - a replacement (`updateStrategy: replace`) whose new handlers exist, the old not yet deleted, then
 *   kill -9;
 * - a replacement whose new handlers are made and recorded, the old ones' deletes handled at the
 *   server and their answers held, then kill -9;
 * - SIGINT once, as Ctrl-C sends it, while creates are in flight;
 * - a destroy whose first deletes are handled at the server, their answers held, then kill -9.
 *
 * After each kill of an up, the documented recovery (docs/interrupted-deploys.md): `pulumi cancel`,
 * `notification-handlers recover`, `pulumi up`; after SIGINT, `pulumi up` alone; after the destroy's,
 * `pulumi cancel` and `pulumi destroy`. Then the account's handlers are the state's: no duplicate, no
 * orphan. `cli-recover-plugin` cuts an up off mid-wave, through the plugin.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import type { NotificationHandlersClient } from "../../sdk/client/client";
import { type FaultProxy, startFaultProxy } from "../support/servers/fault-proxy";
import { cutOff, exportState, handlerIds, interrupt, type ExportedHandlers } from "../support/engine/cut-off";
import { listAll, runItSteps, UserSession } from "../support/engine/user-path";

const COUNT = 6;
const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { NotificationHandler } from "pulumi-notification-handlers";

const suffix = new pulumi.Config().get("nameSuffix") ?? "";
for (let i = 0; i < ${COUNT}; i++) {
  new NotificationHandler(\`h\${i}\`, { type: "email", name: \`Handler \${i}\${suffix}\`, email: \`h\${i}@example.com\` });
}
`;

// Every create of an up in flight at once, whatever the machine's cores (the default is 4 per core).
const CUT_UP = `pulumi up --yes --skip-preview --parallel ${COUNT}`;

describe("a deploy cut off at each point, recovered", () => {
  let session: UserSession | undefined;
  let proxy: FaultProxy | undefined;
  const timings: string[] = [];

  beforeAll(async () => {
    const started = Date.now();
    const steps = await runItSteps("quickstart");
    session = await UserSession.start("quickstart", { pathFirst: inject("enginePath") });
    await writeFile(join(session.project, "index.ts"), PROGRAM);
    await session.step(steps[0]!); // npm install, a key, the server
    await session.mustSh("export PULUMI_CONFIG_PASSPHRASE=local-only\npulumi login --local");
    proxy = await startFaultProxy(session.url!, { rate: 0 });
    timings.push(`setup ${seconds(started)}`);
  });

  afterAll(async () => {
    await proxy?.close();
    await session?.dispose();
    process.stderr.write(`[cli-recover-points] ${timings.join(", ")}\n`);
  });

  /** A stack of its own on an account of its own, its handlers reached through the proxy. */
  async function stack(
    name: string,
    config: Record<string, string> = {},
  ): Promise<NotificationHandlersClient> {
    const s = session!;
    await s.mustSh(
      [
        `export KEY=$(node_modules/.bin/notification-handlers-server keys create --db .data/quickstart.db --user ${name})`,
        `pulumi stack init ${name}`,
        `pulumi config set notification-handlers:baseUrl ${proxy!.url}`,
        'pulumi config set --secret notification-handlers:apiKey "$KEY"',
        ...Object.entries(config).map(([key, value]) => `pulumi config set ${key} ${value}`),
      ].join("\n"),
    );
    return (await s.account()).client;
  }

  /** Resolves to true once the proxy has held `count` answers to `method`. */
  const held = (method: string, count: number) => (): Promise<boolean> =>
    Promise.resolve(proxy!.held.filter((h) => h.startsWith(`held ${method} `)).length >= count);

  /** Lets every held answer go, and holds nothing more (the next point starts clean). */
  async function releaseAll(): Promise<void> {
    for (const method of ["GET", "POST", "DELETE"]) await proxy!.release(method);
    proxy!.held.length = 0;
  }

  /**
   * The documented recovery up to the last `pulumi up`: the stack found locked, `pulumi cancel`,
   * `recover`; its lines, checked to refuse nothing and to account for each pending operation.
   */
  async function recover(state: ExportedHandlers): Promise<string[]> {
    const s = session!;
    const locked = await s.sh("pulumi up --yes --skip-preview");
    expect(locked.code).not.toBe(0);
    expect(locked.stderr).toMatch(/the stack is currently locked by 1 lock/);
    await s.mustSh("pulumi cancel --yes");
    const lines = (await s.mustSh("npx notification-handlers recover")).stdout.trim().split("\n");
    expect(lines.filter((l) => l.startsWith("refused "))).toEqual([]);
    expect(lines).toHaveLength((state.deployment.pending_operations ?? []).length + 1);
    expect(lines.at(-1)).toMatch(/^state written \(\d+ imported, \d+ cleared\)$/);
    return lines;
  }

  /** The account's handlers, checked to be exactly the state's, with nothing pending. */
  async function converged(client: NotificationHandlersClient): Promise<number[]> {
    const handlers = await listAll(client);
    const state = await exportState(session!);
    expect(handlerIds(state)).toEqual(handlers.map((h) => h.id)); // no duplicate, no orphan
    expect(state.deployment.pending_operations ?? []).toEqual([]);
    expect(new Set(handlers.map((h) => h.name)).size).toBe(COUNT);
    return handlers.map((h) => h.id);
  }

  /**
   * A stack whose handlers a rename replaces (`updateStrategy: replace`), its up of the rename killed
   * with kill -9 once `COUNT` answers to `method` are held; and the ids of its handlers before.
   */
  async function cutOffReplacement(
    name: string,
    method: string,
  ): Promise<{ client: NotificationHandlersClient; old: number[] }> {
    const client = await stack(name, { "notification-handlers:updateStrategy": "replace" });
    await session!.mustSh("pulumi up --yes --skip-preview");
    const old = await converged(client);
    await session!.mustSh("pulumi config set nameSuffix ' (renamed)'");
    await proxy!.hold(method);
    await cutOff(session!, CUT_UP, held(method, COUNT));
    await releaseAll();
    return { client, old };
  }

  /** A cut-off up's creates, none recorded, each taken by `recover` for the handler it made; then `pulumi up`. */
  async function recoverEveryCreate(): Promise<void> {
    const state = await cutOffState();
    expect(handlerIds(state)).toEqual([]);
    const lines = await recover(state);
    expect(lines.filter((l) => l.startsWith("imported "))).toHaveLength(COUNT);
    await session!.mustSh("pulumi up --yes --skip-preview");
  }

  /** The stack's state, its lock left as it is (exporting needs none), and its pending creates checked. */
  async function cutOffState(): Promise<ExportedHandlers> {
    const state = await exportState(session!);
    const pending = (state.deployment.pending_operations ?? []).map((p) => p.type);
    expect(pending).toEqual(Array<string>(COUNT).fill("creating")); // one per create in flight
    return state;
  }

  it("kill -9 while the creates' answers are on their way: recover takes every handler they made; a destroy killed so, run again, deletes the rest", async () => {
    const started = Date.now();
    const client = await stack("answers-held");
    await proxy!.hold("POST");
    await cutOff(session!, CUT_UP, held("POST", COUNT));
    await releaseAll();
    const made = (await listAll(client)).map((h) => h.id);
    expect(made).toHaveLength(COUNT);

    await recoverEveryCreate();
    expect(await converged(client)).toEqual(made); // the up made nothing more

    // Two deletes at a time, both handled at the server and their answers held: the handlers they
    // deleted are gone from the API, still in the state.
    await proxy!.hold("DELETE");
    await cutOff(session!, "pulumi destroy --yes --skip-preview --parallel 2", held("DELETE", 2));
    await releaseAll();
    expect(await listAll(client)).toHaveLength(COUNT - 2);
    expect(handlerIds(await exportState(session!))).toEqual(made);
    // After `pulumi cancel`, the next destroy deletes the rest, and a handler already gone counts as deleted.
    await session!.mustSh("pulumi cancel --yes");
    await session!.mustSh("pulumi destroy --yes --skip-preview");
    expect(await listAll(client)).toEqual([]);
    expect(handlerIds(await exportState(session!))).toEqual([]);
    timings.push(`answers held ${seconds(started)}`);
  });

  it("kill -9 while the writes are verified: recover takes every handler, and the next up makes none", async () => {
    const started = Date.now();
    const client = await stack("read-back-held");
    await proxy!.hold("POST");
    let answered = false;
    const readBack = async (): Promise<boolean> => {
      if (!answered) {
        if (!(await held("POST", COUNT)())) return false;
        // The creates were handled: hold what the provider reads next, then answer them.
        await proxy!.hold("GET");
        await proxy!.release("POST");
        answered = true;
      }
      return held("GET", 1)();
    };
    await cutOff(session!, CUT_UP, readBack);
    const verifying = proxy!.held.filter((h) => h.startsWith("held GET "));
    await releaseAll();
    expect(verifying.length).toBeGreaterThan(0);
    const made = (await listAll(client)).map((h) => h.id);
    expect(made).toHaveLength(COUNT);

    await recoverEveryCreate();
    expect(await converged(client)).toEqual(made);
    timings.push(`read-back held ${seconds(started)}`);
  });

  it("kill -9 in a replacement, new handlers made and old ones not yet deleted: the next up deletes the old", async () => {
    const started = Date.now();
    const { client, old } = await cutOffReplacement("replacement", "POST");
    const during = await listAll(client);
    expect(during).toHaveLength(2 * COUNT); // the old handlers, and the new ones made
    const renamed = (h: { name: string }): boolean => h.name.endsWith(" (renamed)");
    expect(during.filter((h) => old.includes(h.id)).some(renamed)).toBe(false);
    const made = during.filter((h) => !old.includes(h.id)).map((h) => h.id);
    expect(during.filter((h) => made.includes(h.id)).every(renamed)).toBe(true);

    const state = await cutOffState();
    expect(handlerIds(state)).toEqual(old);
    const lines = await recover(state);
    expect(lines.filter((l) => l.startsWith("imported "))).toHaveLength(COUNT);
    const recovered = await exportState(session!);
    // Each new handler is its resource's; the old one stays, marked for deletion.
    expect(handlerIds(recovered)).toEqual([...old, ...made]);

    await session!.mustSh("pulumi up --yes --skip-preview");
    expect(await converged(client)).toEqual(made); // the old handlers are gone
    timings.push(`replacement ${seconds(started)}`);
  });

  it("kill -9 in a replacement while the old handlers' deletes are answered: recover clears them, the next up converges", async () => {
    const started = Date.now();
    const { client, old } = await cutOffReplacement("deletes-held", "DELETE");
    const made = (await listAll(client)).map((h) => h.id);
    expect(made).toHaveLength(COUNT); // the old handlers deleted at the server, the new ones made
    expect(made.some((id) => old.includes(id))).toBe(false);

    const state = await exportState(session!);
    const pending = (state.deployment.pending_operations ?? []).map((p) => p.type);
    expect(pending).toEqual(Array<string>(COUNT).fill("deleting")); // one per delete in flight
    expect(handlerIds(state)).toEqual([...old, ...made]); // the old ones still there, to be deleted
    const lines = await recover(state);
    expect(lines.filter((l) => l.startsWith("cleared "))).toHaveLength(COUNT);

    await session!.mustSh("pulumi up --yes --skip-preview"); // deletes what is already gone: fine
    expect(await converged(client)).toEqual(made);
    timings.push(`deletes held ${seconds(started)}`);
  });

  it("SIGINT once while creates are in flight: Pulumi finishes them, and the next up converges alone", async () => {
    const started = Date.now();
    const client = await stack("interrupted");
    await proxy!.hold("POST");
    // Two operations at a time, so some creates have not started when the signal comes.
    const result = await interrupt(
      session!,
      "pulumi up --yes --skip-preview --parallel 2",
      held("POST", 2),
      // The answers go once Pulumi has taken the signal in.
      () => setTimeout(() => void releaseAll(), 1_000),
    );
    // Pulumi takes the signal in, lets the creates in flight end and records them, then fails the run.
    expect(result.stdout).toContain("^C received; cancelling.");
    expect(result.stdout).toContain("error: update canceled");
    expect(result.code).not.toBe(0);
    const made = await listAll(client);
    expect(made.length).toBeGreaterThanOrEqual(2);
    expect(made.length).toBeLessThan(COUNT);

    const state = await exportState(session!);
    expect(state.deployment.pending_operations ?? []).toEqual([]);
    expect(handlerIds(state)).toEqual(made.map((h) => h.id)); // every handler made is recorded

    await session!.mustSh("pulumi up --yes --skip-preview"); // no lock left, nothing to recover
    const after = await converged(client);
    expect(after).toHaveLength(COUNT);
    expect(after.slice(0, made.length)).toEqual(made.map((h) => h.id));
    timings.push(`SIGINT ${seconds(started)}`);
  });
});

/** Seconds since `started`, for the timings line. */
function seconds(started: number): string {
  return `${((Date.now() - started) / 1000).toFixed(1)} s`;
}
