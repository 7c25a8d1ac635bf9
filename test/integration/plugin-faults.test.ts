/**
 * The plugin through faults, as `e2e/faults` proves the dynamic provider: the built plugin over gRPC,
 * configured with a fault-injecting proxy (test/support/servers/fault-proxy-process.mts) in front of the
 * reference server. A fifth of the requests meet a 5xx, a 429, a cut connection or an answer slower
 * than the client waits, lost answers of creates included. Creates, then updates and deletes, each
 * sent as the engine sends a run's steps (at once), converge: the API holds exactly the handlers whose
 * ids the plugin returned, with no duplicate and no orphan, and the next run's Diff finds no change.
 */
import { DiffResponse } from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type FaultProxy, startFaultProxy } from "../support/servers/fault-proxy";
import { type TestServer, startServer } from "../support/servers/reference-server";
import {
  type PluginProcess,
  PluginRuns,
  checkedInputs,
  createRequest,
  deleteRequest,
  diffRequest,
  updateRequest,
} from "../support/plugin-process";

const N = 20;
const FAULT_RATE = 0.2;
const CLIENT_TIMEOUT_MS = 500; // the proxy's slow answers take 1 s
/** Answers whose loss leaves a create's outcome unknown: the server stored it, the client never heard. */
const LOST_ANSWERS = ["5xx-after", "reset-after", "slow"];

let server: TestServer | undefined;
let proxy: FaultProxy | undefined;
const runs = new PluginRuns();
let key = "";

beforeAll(async () => {
  server = await startServer();
  key = await server.newKey();
  proxy = await startFaultProxy(server.url, { rate: FAULT_RATE, seed: 8, slowMs: CLIENT_TIMEOUT_MS * 2 });
});

afterAll(async () => {
  await runs.stopAll();
  await proxy?.close();
  await server?.close();
});

/** A new plugin process, as each run of the engine starts one, configured with the proxy. */
function nextRun(): Promise<PluginProcess> {
  return runs.next(proxy!.url, key, { requestTimeoutMs: CLIENT_TIMEOUT_MS });
}

/** The inputs of handler `i` as Check returns them. */
function checked(plugin: PluginProcess, i: number, name: string): Promise<Struct> {
  return checkedInputs(plugin, `h${i}`, { type: "internal_notification", name });
}

/** The server's handlers as `id name`, sorted. */
async function storedHandlers(): Promise<string[]> {
  return (await server!.handlers(key)).map((h) => `${h.id} ${h.name}`).sort();
}

describe("the plugin through a proxy injecting 20% faults", () => {
  it("creates 20, renames 10 and deletes 10, then deletes the rest, each converging in one run", async () => {
    // The first run: every create at once.
    const first = await nextRun();
    const inputs = await Promise.all(Array.from({ length: N }, (_, i) => checked(first, i, `handler ${i}`)));
    const created = await Promise.all(
      inputs.map((properties, i) => first.create(createRequest(`h${i}`, properties))),
    );
    const ids = created.map((c) => c.getId());
    const outputs = created.map((c) => c.getProperties()!);
    expect(new Set(ids).size).toBe(N);
    expect(await storedHandlers()).toEqual(ids.map((id, i) => `${id} handler ${i}`).sort());

    // Some creates lost their answer, and the plugin took over what they made instead of creating again.
    const lostCreates = proxy!.faults.filter((f) => {
      const [, kind, method] = f.split(" ");
      return method === "POST" && LOST_ANSWERS.includes(kind ?? "");
    });
    expect(lostCreates.length).toBeGreaterThan(0);
    expect(first.stderr).toMatch(/found the handler it made \(\d+\) and took it over/);

    // The next run sees no change.
    const second = await nextRun();
    const diffs = await Promise.all(
      ids.map((id, i) => second.diff(diffRequest(id, `h${i}`, outputs[i], inputs[i]))),
    );
    expect(diffs.map((d) => d.getChanges())).toEqual(ids.map(() => DiffResponse.DiffChanges.DIFF_NONE));

    // A run renaming the first half in place and deleting the second half.
    const third = await nextRun();
    const half = N / 2;
    const renamedInputs = await Promise.all(
      Array.from({ length: half }, (_, i) => checked(third, i, `handler ${i} (renamed)`)),
    );
    await Promise.all([
      ...renamedInputs.map((news, i) => third.update(updateRequest(ids[i]!, `h${i}`, outputs[i], news))),
      ...ids.slice(half).map((id, j) => third.delete(deleteRequest(id, `h${half + j}`, outputs[half + j]))),
    ]);
    expect(await storedHandlers()).toEqual(
      ids
        .slice(0, half)
        .map((id, i) => `${id} handler ${i} (renamed)`)
        .sort(),
    );

    // A destroy.
    const fourth = await nextRun();
    await Promise.all(
      ids.slice(0, half).map((id, i) => fourth.delete(deleteRequest(id, `h${i}`, outputs[i]))),
    );
    expect(await storedHandlers()).toEqual([]);

    // Faults of every kind happened, and none reached the caller.
    const kinds = new Set(proxy!.faults.map((f) => f.split(" ")[1]));
    expect([...kinds].sort()).toEqual([
      "429",
      "5xx-after",
      "5xx-before",
      "reset-after",
      "reset-before",
      "slow",
    ]);
    process.stdout.write(
      `plugin through faults: ${proxy!.faults.length} injected in ${server!.served.length} requests that reached the server, ` +
        `${lostCreates.length} creates' answers lost; creates, updates and deletes converged\n`,
    );
  });
});
