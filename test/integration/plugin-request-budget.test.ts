/**
 * The plugin's request budget, counted at the reference server: the same figures `e2e/drift`'s
 * "request budget" asserts for the dynamic provider under the engine. Each run of the engine starts its
 * plugin anew, so each run here is a new plugin process, sent the calls the engine sends: a create-up
 * writes each handler once; a run with nothing to change reads the account with ceil(K/1000) lists
 * and nothing else; a rename costs its write, the read that verifies it and the run's list; a destroy
 * writes each handler once.
 */
import { DiffResponse } from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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

const K = 20;

let server: TestServer | undefined;
const runs = new PluginRuns();
let key = "";

beforeAll(async () => {
  server = await startServer();
  key = await server.newKey();
});

afterAll(async () => {
  await runs.stopAll();
  await server?.close();
});

/** A new plugin process, as each run of the engine starts one. */
function nextRun(): Promise<PluginProcess> {
  return runs.next(server!.url, key);
}

/** The checked inputs of handler `i`, renamed or not. */
function checked(plugin: PluginProcess, i: number, renamed = false): Promise<Struct> {
  const news = { type: "email", name: renamed ? "renamed" : `handler ${i}`, email: `h${i}@example.com` };
  return checkedInputs(plugin, `h${i}`, news);
}

describe("the plugin's requests, counted at the server", () => {
  it(`reads ${K} handlers with one list when nothing changes, and writes each handler once`, async () => {
    const indices = Array.from({ length: K }, (_, i) => i);

    // Create-up: how many lists verify the writes depends on timing (`npm run bench:engine`).
    let run = await nextRun();
    let mark = server!.served.length;
    const inputs = await Promise.all(indices.map((i) => checked(run, i)));
    const created = await Promise.all(indices.map((i) => run.create(createRequest(`h${i}`, inputs[i]))));
    expect(server!.countSince(mark).writes).toBe(K);
    const ids = created.map((c) => c.getId());
    const outputs = created.map((c) => c.getProperties()!);
    const diffAll = (plugin: PluginProcess, news: Struct[]): Promise<DiffResponse[]> =>
      Promise.all(indices.map((i) => plugin.diff(diffRequest(ids[i]!, `h${i}`, outputs[i], news[i]))));

    // A run with nothing to change (a preview, or an up): one list, for the whole account.
    run = await nextRun();
    mark = server!.served.length;
    const same = await diffAll(run, await Promise.all(indices.map((i) => checked(run, i))));
    expect(same.every((d) => d.getChanges() === DiffResponse.DiffChanges.DIFF_NONE)).toBe(true);
    expect(server!.countSince(mark)).toEqual({ lists: Math.ceil(K / 1000), reads: 0, writes: 0, total: 1 });

    // A rename in place: the run's list, one write and the read that verifies it.
    run = await nextRun();
    mark = server!.served.length;
    const news = await Promise.all(indices.map((i) => checked(run, i, i === 0)));
    const diffs = await diffAll(run, news);
    expect(diffs.map((d) => d.getChanges())).toEqual(
      indices.map((i) => (i === 0 ? DiffResponse.DiffChanges.DIFF_SOME : DiffResponse.DiffChanges.DIFF_NONE)),
    );
    await run.update(updateRequest(ids[0]!, "h0", outputs[0], news[0]));
    expect(server!.countSince(mark)).toEqual({ lists: 1, reads: 1, writes: 1, total: 3 });

    // A destroy: one write per handler.
    run = await nextRun();
    mark = server!.served.length;
    await Promise.all(indices.map((i) => run.delete(deleteRequest(ids[i]!, `h${i}`, outputs[i]))));
    expect(server!.countSince(mark).writes).toBe(K);
    expect(await server!.handlers(key)).toEqual([]);
  });
});
