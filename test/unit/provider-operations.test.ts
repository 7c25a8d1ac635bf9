/**
 * The provider's operations over a fake API, without the engine: recovery of creates of unknown
 * outcome, the claims, adoption, shared verifying reads and partial failures.
 */
import { describe, expect, it, vi } from "vitest";

import type { HandlerInputs } from "../../provider/core/inputs";
import * as operations from "../../provider/core/operations";
import { isPartialFailure } from "../../provider/core/partial-failure";
import { DEFAULT_BATCH_WINDOW_MS, proofOf } from "../../provider/core/read-back";
import { FakeApi, fakeContext } from "../support/fake-api";

const email = (name: string, over: Partial<HandlerInputs> = {}): HandlerInputs => ({
  type: "email",
  name,
  email: `${name.toLowerCase().replaceAll(" ", "-")}@example.com`,
  ...over,
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const names = (api: FakeApi): string[] => [...api.store.values()].map((h) => h.name).sort();

describe("a create of unknown outcome", () => {
  it("answered 5xx after the server stored it: takes over what it made, no second create", async () => {
    const api = new FakeApi();
    const { ctx, notes } = fakeContext(api);
    api.createFaults = ["500-after"];
    const made = await operations.create(ctx, email("Ops"));
    expect(api.calls.create).toBe(1);
    expect(names(api)).toEqual(["Ops"]);
    expect(made.id).toBe(String([...api.store.keys()][0]));
    expect(notes.join("\n")).toContain("found the handler it made");
  });

  it("cut after the server stored it: takes over what it made", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    api.createFaults = ["reset-after"];
    const made = await operations.create(ctx, email("Ops"));
    expect(api.calls.create).toBe(1);
    expect([...api.store.keys()]).toEqual([Number(made.id)]);
  });

  it("answered 500 before anything was stored: creates again, once", async () => {
    const api = new FakeApi();
    const { ctx, notes } = fakeContext(api);
    api.createFaults = ["500-before", "500-before"];
    const made = await operations.create(ctx, email("Ops"));
    expect(api.calls.create).toBe(3);
    expect([...api.store.keys()]).toEqual([Number(made.id)]);
    expect(notes.filter((n) => n.includes("creating it again"))).toHaveLength(2);
  });

  it("never takes over a handler that existed before the create, however well it matches", async () => {
    const api = new FakeApi();
    const before = api.seed({ type: "email", name: "Ops", settings: { email: "ops@example.com" } });
    const { ctx } = fakeContext(api);
    api.createFaults = ["500-before"];
    const made = await operations.create(ctx, email("Ops"));
    expect(Number(made.id)).not.toBe(before.id);
    expect(api.store.size).toBe(2);
  });

  it("gives up after eight attempts that made nothing, leaving nothing behind", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    api.createFaults = Array.from({ length: 8 }, () => "500-before" as const);
    await expect(operations.create(ctx, email("Ops"))).rejects.toThrow(/500/);
    expect(api.calls.create).toBe(8);
    expect(api.store.size).toBe(0);
  });

  it("of twins created side by side: each resource ends with its own handler, none left over", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    api.createFaults = ["reset-after", undefined, "500-after", undefined];
    const results = await Promise.all([1, 2, 3, 4].map(() => operations.create(ctx, email("Same"))));
    const ids = results.map((r) => Number(r.id));
    expect(new Set(ids).size).toBe(4);
    expect([...api.store.keys()].sort()).toEqual([...ids].sort());
    expect(api.calls.create).toBe(4);
  });

  it("finds what it made when the server ignores the list order (2025), reading every page", async () => {
    const api = new FakeApi();
    api.ignoreOrder = true;
    for (let i = 0; i < 1500; i++) api.seed({ type: "internal_notification", name: `other ${i}` });
    const { ctx } = fakeContext(api);
    api.createFaults = ["500-after"];
    const made = await operations.create(ctx, { type: "internal_notification", name: "Mine" });
    expect(api.store.get(Number(made.id))?.name).toBe("Mine");
    expect(api.store.size).toBe(1501);
  });

  it("does not take a handler claimed by a resource of this process", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    const first = await operations.create(ctx, email("Ops"));
    api.createFaults = ["500-before"];
    const second = await operations.create(ctx, email("Ops"));
    expect(second.id).not.toBe(first.id);
    expect(api.store.size).toBe(2);
  });
});

describe("adoption and claims", () => {
  it("adopt: true takes over the one handler of that name and type, updating it to the program", async () => {
    const api = new FakeApi();
    const old = api.seed({ type: "email", name: "Ops", settings: { email: "old@example.com" } });
    const { ctx } = fakeContext(api);
    const made = await operations.create(ctx, email("Ops", { adopt: true }));
    expect(made.id).toBe(String(old.id));
    expect(api.calls.create).toBe(0);
    expect(api.store.get(old.id)?.settings).toEqual({ email: "ops@example.com" });
  });

  it("does not adopt a handler another resource of this process manages", async () => {
    const api = new FakeApi();
    const old = api.seed({ type: "email", name: "Ops", settings: { email: "ops@example.com" } });
    const { ctx } = fakeContext(api);
    await operations.diff(ctx, String(old.id), email("Ops"), email("Ops"));
    const made = await operations.create(ctx, email("Ops", { adopt: true }));
    expect(made.id).not.toBe(String(old.id));
    await expect(operations.create(ctx, email("Ops", { adopt: old.id }))).rejects.toThrow(
      /already managed by another resource/,
    );
  });

  it("refuses to guess between two handlers of the same name", async () => {
    const api = new FakeApi();
    api.seed({ type: "email", name: "Ops" });
    api.seed({ type: "email", name: "Ops" });
    const { ctx } = fakeContext(api);
    await expect(operations.create(ctx, email("Ops", { adopt: true }))).rejects.toThrow(/ids 1, 2/);
  });
});

describe("verifying writes with shared reads", () => {
  it("verifies 100 creates made side by side with a few list requests and no single reads", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        operations.create(ctx, { type: "internal_notification", name: `h${i}` }),
      ),
    );
    expect(api.calls.create).toBe(100);
    expect(api.calls.retrieve).toBe(0);
    // One list for the snapshot, then the shared verifications.
    expect(api.calls.list).toBeLessThanOrEqual(4);
    expect(ctx.site().readBack.stats.provenByList).toBe(100);
  });

  it("checks wait for writes still in flight: writes answered one by one share one list", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    // As under a rate limit: the server answers one create at a time, a few milliseconds apart.
    let queue = Promise.resolve();
    api.onCreate = () => {
      const turn = queue.then(() => new Promise<void>((resolve) => setTimeout(resolve, 3)));
      queue = turn;
      return turn;
    };
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        operations.create(ctx, { type: "internal_notification", name: `h${i}` }),
      ),
    );
    expect(api.calls).toMatchObject({ create: 30, retrieve: 0, list: 2 });
  });

  it.each([
    { pace: "a quiet machine's", pauseMs: 4 },
    {
      pace: "a loaded machine's, its pauses longer than the batch window",
      pauseMs: 3 * DEFAULT_BATCH_WINDOW_MS,
    },
  ])("an engine that starts its operations at $pace pace shares one list per wave", async ({ pauseMs }) => {
    // As the engine runs them: at most `parallel` at once, a slot refilled as soon as an operation
    // ends, each operation started 4 ms after its slot is free and after the one before (the engine's
    // work per step), every third `pauseMs` after (a loaded machine's engine waiting for a core). On
    // a fake clock, so that the machine's own pauses cannot cut a wave.
    vi.useFakeTimers();
    try {
      for (const parallel of [8, 16, 32]) {
        const api = new FakeApi();
        const { ctx } = fakeContext(api, [], DEFAULT_BATCH_WINDOW_MS); // the provider's own window
        api.onCreate = () => sleep(2);
        let gate = Promise.resolve();
        let next = 0;
        const worker = async (): Promise<void> => {
          for (let i = next++; i < 100; i = next++) {
            gate = gate.then(() => sleep(4));
            await Promise.all([gate, sleep(i % 3 === 2 ? pauseMs : 0)]);
            await operations.create(ctx, { type: "internal_notification", name: `h${i}` });
          }
        };
        const run = Promise.all(Array.from({ length: parallel }, worker));
        await vi.runAllTimersAsync();
        await run;
        expect(api.calls.create).toBe(100);
        // The floor: the writes, the snapshot and one list per wave, ceil(100 / parallel). On a quiet
        // machine one list to spare (cutting the first wave short left the waves out of step: 23 reads
        // at 8); on a loaded one within 5% of the floor.
        const floor = 100 + 1 + Math.ceil(100 / parallel);
        const requests = api.calls.create + api.calls.list + api.calls.retrieve;
        expect(requests, `parallel ${parallel}`).toBeLessThanOrEqual(pauseMs < 10 ? floor + 1 : 1.05 * floor);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("verifies 100 deletes with a few list requests", async () => {
    const api = new FakeApi();
    for (let i = 0; i < 100; i++) api.seed({ type: "internal_notification", name: `h${i}` });
    const { ctx } = fakeContext(api);
    await Promise.all([...api.store.keys()].map((id) => operations.remove(ctx, String(id))));
    expect(api.store.size).toBe(0);
    expect(api.calls.delete).toBe(100);
    expect(api.calls.retrieve).toBe(0);
    expect(api.calls.list).toBeLessThanOrEqual(3);
  });

  it("falls back to single reads when the list fails", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    await ctx.site().account.all();
    api.failingLists = 1;
    await Promise.all([1, 2, 3].map((i) => operations.create(ctx, email(`Ops ${i}`))));
    expect(api.calls.retrieve).toBe(3);
    expect(api.store.size).toBe(3);
  });

  it("a single write is verified by a single read", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    await operations.create(ctx, email("Ops"));
    expect(api.calls).toMatchObject({ list: 1, create: 1, retrieve: 1 });
  });

  it("a delete the server did not apply is reported", async () => {
    const api = new FakeApi();
    const h = api.seed({ type: "email", name: "Ops" });
    api.delete = () => Promise.resolve();
    const { ctx } = fakeContext(api);
    await expect(operations.remove(ctx, String(h.id))).rejects.toThrow(/still exists/);
  });

  it("a delete of a handler already gone succeeds", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    await expect(operations.remove(ctx, "42")).resolves.toBeUndefined();
  });
});

describe("what a list page proves", () => {
  const handler = (id: number) => ({
    id,
    type: "email",
    name: `h${id}`,
    settings: {},
    is_enabled: true,
    is_pending: false,
    last_datetime: null,
    datetime: "",
  });
  const page = (ids: number[], total: number | null, totalPages: number | null = null) => ({
    data: ids.map(handler),
    meta: { page: 1, results_per_page: 1000, total, total_pages: totalPages },
  });

  it("the whole account proves every id it does not show absent", () => {
    expect(proofOf(page([3, 1, 2], 3)).provesAbsent(99)).toBe(true);
  });

  it("a partial page in descending order proves absent only ids above its oldest", () => {
    const proof = proofOf(page([900, 899, 850], 5000), 3);
    expect(proof.provesAbsent(880)).toBe(true);
    expect(proof.provesAbsent(10)).toBe(false);
  });

  it("a partial page not in order (2025) proves nothing absent", () => {
    const proof = proofOf(page([1, 5, 3], 5000), 3);
    expect(proof.shown.has(5)).toBe(true);
    expect(proof.provesAbsent(4)).toBe(false);
    expect(proof.provesAbsent(9)).toBe(false);
  });
});

describe("partial failures", () => {
  it("a create whose verifying read fails records the handler it made", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    await ctx.site().account.all();
    api.retrieve = () => Promise.reject(new Error("connection reset"));
    const error: unknown = await operations.create(ctx, email("Ops")).catch((e: unknown) => e);
    expect(isPartialFailure(error)).toBe(true);
    const id = (error as { id: string }).id;
    expect(api.store.has(Number(id))).toBe(true);
    expect((error as Error).message).toContain(`handler ${id} exists`);
  });

  it("an update answered 200 that saved nothing is named as the 2025 defect, recording the live handler", async () => {
    const api = new FakeApi();
    const h = api.seed({ type: "email", name: "Ops", settings: { email: "ops@example.com" } });
    api.update = (id) => Promise.resolve({ id, raw: { id } });
    const { ctx } = fakeContext(api);
    const error: unknown = await operations
      .update(ctx, String(h.id), email("Ops"), email("Ops renamed", { email: "ops@example.com" }))
      .catch((e: unknown) => e);
    expect(isPartialFailure(error)).toBe(true);
    expect((error as Error).message).toMatch(/saved nothing.*2025/);
  });
});
