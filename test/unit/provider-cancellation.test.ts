/**
 * The engine's cancel over a fake API: once cancelled, no create, update or delete is sent, reads
 * go on, and the client's wait before a retry fails instead of waiting.
 */
import { describe, expect, it } from "vitest";

import { OperationCancelledError } from "../../provider/core/cancellation";
import * as operations from "../../provider/core/operations";
import { FakeApi, fakeContext } from "../support/fake-api";

const inputs = { type: "email", name: "Ops", email: "ops@example.com" };

describe("after a cancel", () => {
  it("starts no write, and reads still work", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    const made = await operations.create(ctx, inputs);
    ctx.cancellation.cancel();

    await expect(operations.create(ctx, { ...inputs, name: "Second" })).rejects.toThrow(
      new OperationCancelledError("a create"),
    );
    await expect(operations.update(ctx, made.id, inputs, { ...inputs, name: "Renamed" })).rejects.toThrow(
      "the operation was cancelled: an update was not started",
    );
    await expect(operations.remove(ctx, made.id, inputs)).rejects.toThrow(
      "the operation was cancelled: a delete was not started",
    );
    expect(api.calls).toMatchObject({ create: 1, update: 0, delete: 0 });
    expect([...api.store.values()].map((h) => h.name)).toEqual(["Ops"]);

    const read = await operations.read(ctx, made.id, made.outs);
    expect(read.id).toBe(made.id);
  });

  it("the client's wait before a retry fails instead of waiting", async () => {
    const { ctx } = fakeContext(new FakeApi());
    await expect(ctx.cancellation.sleep(1)).resolves.toBeUndefined();
    ctx.cancellation.cancel();
    const started = Date.now();
    await expect(ctx.cancellation.sleep(60_000)).rejects.toThrow(
      "the operation was cancelled: a retry was not started",
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
