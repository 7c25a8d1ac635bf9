/**
 * Pulumi's resource options as the core honours them for both providers, over a fake API:
 * `ignoreChanges` leaves a field to the web UI through diffs, updates and replacements;
 * `replaceOnChanges` replaces; `customTimeouts` fails late operations recording what they made; drift
 * notes name who changed a field after a refresh; a takeover notes what it will write. And the
 * options the dynamic provider's resource passes, as it writes them.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import type { HandlerInputs, HandlerOutputs } from "../../provider/core/inputs";
import * as operations from "../../provider/core/operations";
import { isPartialFailure } from "../../provider/core/partial-failure";
import { durationSeconds } from "../../provider/dynamic/duration";
import { optionsIn, passedOptions } from "../../provider/dynamic/passed-options";
import { FakeApi, fakeContext } from "../support/fake-api";

const SLACK = "https://hooks.slack.com/services/T0/B0/CODE";
const ROTATED = "https://hooks.slack.com/services/T0/B0/ROTATED";

const email = (over: Partial<HandlerInputs> = {}): HandlerInputs => ({
  type: "email",
  name: "On-call",
  email: "oncall@example.com",
  ...over,
});

/** A handler made by the provider, then changed in the web UI as `edit` says. */
async function deployedThenEdited(
  inputs: HandlerInputs,
  edit: (settings: Record<string, string>) => { name?: string; settings?: Record<string, string> },
): Promise<{ api: FakeApi; ctx: ReturnType<typeof fakeContext>; id: string; outs: HandlerOutputs }> {
  const api = new FakeApi();
  const made = await operations.create(fakeContext(api).ctx, inputs);
  const stored = api.store.get(Number(made.id))!;
  api.store.set(stored.id, { ...stored, ...edit(stored.settings) });
  return { api, ctx: fakeContext(api), id: made.id, outs: made.outs };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("ignoreChanges", () => {
  it("a name renamed in the web UI shows no drift, and an update of another field keeps it", async () => {
    const { api, ctx, id, outs } = await deployedThenEdited(email(), () => ({ name: "Renamed in UI" }));
    const ignoreChanges = ["name"];
    const same = await operations.diff(ctx.ctx, id, outs, email(), ctx.ctx.note, { ignoreChanges });
    expect(same).toEqual({ changes: false, changed: [] });
    expect(ctx.notes).toEqual([]);

    const disabled = email({ isEnabled: false });
    const change = await operations.diff(ctx.ctx, id, outs, disabled, ctx.ctx.note, { ignoreChanges });
    expect(change.changed).toEqual(["isEnabled"]);
    expect(ctx.notes.join("\n")).not.toContain("name:");
    const updated = await operations.update(ctx.ctx, id, outs, disabled, { ignoreChanges });
    expect(api.store.get(Number(id))).toMatchObject({ name: "Renamed in UI", is_enabled: false });
    expect(updated.outs.name).toBe("Renamed in UI");
  });

  it("a secret field rotated in the web UI is kept, and the note never shows it", async () => {
    const slack = { type: "slack", name: "Team", slack: SLACK };
    const { api, ctx, id, outs } = await deployedThenEdited(slack, () => ({ settings: { slack: ROTATED } }));
    const renamed = { ...slack, name: "Team Slack" };
    const options = { ignoreChanges: ["slack"] };
    const change = await operations.diff(ctx.ctx, id, outs, renamed, ctx.ctx.note, options);
    expect(change.changed).toEqual(["name"]);
    await operations.update(ctx.ctx, id, outs, renamed, options);
    expect(api.store.get(Number(id))?.settings).toEqual({ slack: ROTATED });
    expect(ctx.notes.join("\n")).not.toMatch(/ROTATED|CODE/);
  });

  it("a replacement carries the live value over to the new handler, and adopts nothing", async () => {
    const { api, ctx, id, outs } = await deployedThenEdited(email(), () => ({ name: "Renamed in UI" }));
    const moved = email({ email: "rota@example.com", updateStrategy: "replace", adopt: Number(id) });
    const options = { ignoreChanges: ["name"] };
    const change = await operations.diff(ctx.ctx, id, outs, moved, ctx.ctx.note, options);
    expect(change.replaces).toContain("email");
    // The engine sends the replacement's create the program's name, not the recorded one.
    const made = await operations.create(ctx.ctx, { ...moved, name: "On-call (code)" }, options);
    expect(api.store.get(Number(made.id))).toMatchObject({
      name: "Renamed in UI",
      settings: { email: "rota@example.com" },
    });
  });
});

describe("ignoreChanges, at the edges", () => {
  it("a credential field a refresh left out of the inputs is taken live, and named when the list does not", async () => {
    const slack = { type: "slack", name: "Team", slack: SLACK };
    const { api, ctx, id, outs } = await deployedThenEdited(slack, () => ({ settings: { slack: ROTATED } }));
    // What the engine checks after a refresh: the recorded inputs lack the secret, and it carries
    // that absence over for the field the program leaves to the UI.
    const recorded = { type: "slack", name: "Team" };
    const options = { ignoreChanges: ["slack"] };
    const checked = await operations.check(ctx.ctx, recorded, recorded, ctx.ctx.note, options);
    expect(checked.failures).toEqual([]);
    const renamed = { ...recorded, name: "Team Slack" };
    expect((await operations.diff(ctx.ctx, id, outs, renamed, ctx.ctx.note, options)).changed).toEqual([
      "name",
    ]);
    await operations.update(ctx.ctx, id, outs, renamed, options);
    expect(api.store.get(Number(id))?.settings).toEqual({ slack: ROTATED });
    await expect(operations.diff(ctx.ctx, id, outs, renamed)).rejects.toThrow(
      "slack is required for type slack",
    );
  });

  it("a create finds the diff of its own resource only, whatever the list leaves of the inputs", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    const a = await operations.create(ctx, email());
    const options = (resource: string) => ({ resource, ignoreChanges: ["*"] });
    await operations.diff(ctx, a.id, a.outs, email(), ctx.note, options("a"));
    // Another resource of the same type and fields is not the replacement of `a`: nothing of a's is kept.
    const b = await operations.create(ctx, email({ name: "Other" }), options("b"));
    expect(api.store.get(Number(b.id))?.name).toBe("Other");
  });

  it("a takeover leaves what the program leaves to others as it is live, and its note does not name it", async () => {
    const api = new FakeApi();
    const live = api.seed({ type: "email", name: "Ops (UI)", settings: { email: "old@example.com" } });
    const { ctx, notes } = fakeContext(api);
    const inputs = email({ name: "Ops", adopt: live.id });
    const options = { ignoreChanges: ["name"] };
    await operations.check(ctx, inputs, {}, ctx.note, options);
    expect(notes.join("\n")).not.toContain("name:");
    expect(notes.join("\n")).toContain('email: live "old@example.com", desired "oncall@example.com"');
    await operations.create(ctx, inputs, options);
    expect(api.store.get(live.id)).toMatchObject({
      name: "Ops (UI)",
      settings: { email: "oncall@example.com" },
    });
  });
});

describe("replaceOnChanges", () => {
  it("a change of a named property replaces the handler; other changes stay in place", async () => {
    const { ctx, id, outs } = await deployedThenEdited(email(), () => ({}));
    const options = { replaceOnChanges: ["email"] };
    const renamed = await operations.diff(ctx.ctx, id, outs, email({ name: "Pager" }), ctx.ctx.note, options);
    expect(renamed.replaces).toEqual([]);
    const moved = email({ email: "rota@example.com" });
    expect((await operations.diff(ctx.ctx, id, outs, moved, ctx.ctx.note, options)).replaces).toEqual([
      "email",
    ]);
    // Unknown at preview: the preview already shows the replacement the up will make.
    const unknown = email({ email: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" });
    expect((await operations.diff(ctx.ctx, id, outs, unknown, ctx.ctx.note, options)).replaces).toEqual([
      "email",
    ]);
  });
});

describe("who changed a field, after a refresh", () => {
  it("a field changed in the web UI reads as changed outside the code, and a code change as the code's", async () => {
    const { ctx, id, outs } = await deployedThenEdited(email(), () => ({ name: "Renamed in UI" }));
    const refreshed = await operations.read(ctx.ctx, id, outs);
    expect(refreshed.props?.name).toBe("Renamed in UI");
    await operations.diff(ctx.ctx, id, refreshed.props!, email({ email: "rota@example.com" }));
    const note = ctx.notes.join("\n");
    expect(note).toContain('handler 1 ("Renamed in UI", in the code "On-call") differs from the program:');
    expect(note).toContain('name: live "Renamed in UI", desired "On-call" (changed outside the code)');
    expect(note).toContain(
      'email: live "oncall@example.com", desired "rota@example.com" (changed in the code)',
    );
  });

  it("the fields of a type the code changed to read as the code's", async () => {
    const { ctx, id, outs } = await deployedThenEdited(email(), () => ({}));
    await operations.diff(ctx.ctx, id, outs, { type: "twilio", name: "On-call", twilio: "+15550100" });
    const note = ctx.notes.join("\n");
    expect(note).toContain('type: live "email", desired "twilio" (changed in the code)');
    expect(note).toContain('twilio: live (missing), desired "+15550100" (changed in the code)');
  });

  it("a state an earlier version refreshed holds no record: its origin is unknown, never the code's", async () => {
    const { ctx, id, outs } = await deployedThenEdited(email(), () => ({ name: "Renamed in UI" }));
    const refreshed = (await operations.read(ctx.ctx, id, outs)).props!;
    delete refreshed.__applied;
    await operations.diff(ctx.ctx, id, refreshed, email());
    expect(ctx.notes.join("\n")).toContain(
      'name: live "Renamed in UI", desired "On-call" (origin unknown: the state predates the record of the last deploy)',
    );
  });

  it("the record holds digests, not the values", async () => {
    const { outs } = await deployedThenEdited({ type: "slack", name: "Team", slack: SLACK }, () => ({}));
    expect(Object.keys(outs.__applied as object).sort()).toEqual(["isEnabled", "name", "slack", "type"]);
    expect(JSON.stringify(outs.__applied)).not.toContain("hooks.slack.com");
  });
});

describe("a takeover", () => {
  it("notes at check each field its create will write, under the handler's live name", async () => {
    const api = new FakeApi();
    const live = api.seed({ type: "slack", name: "Ops (UI)", settings: { slack: ROTATED } });
    const { ctx, notes } = fakeContext(api);
    const inputs = { type: "slack", name: "Ops", slack: SLACK, adopt: live.id };
    expect((await operations.check(ctx, inputs)).failures).toEqual([]);
    expect(notes).toEqual([
      `handler ${live.id} ("Ops (UI)", in the code "Ops") differs from the program:\n` +
        '  name: live "Ops (UI)", desired "Ops" (changed outside the code)\n' +
        "  slack: live [secret], desired [secret] (changed outside the code)",
    ]);
    // A resource already in the state takes nothing over: no note, no request.
    const calls = api.calls.list + api.calls.retrieve;
    await operations.check(ctx, inputs, inputs);
    expect(api.calls.list + api.calls.retrieve).toBe(calls);
    expect(notes).toHaveLength(1);
  });
});

describe("customTimeouts", () => {
  it("a create answered after its timeout fails naming it, and records the handler it made", async () => {
    const api = new FakeApi();
    const { ctx } = fakeContext(api);
    const start = Date.now();
    let clock = start;
    vi.spyOn(Date, "now").mockImplementation(() => clock);
    api.onCreate = () => {
      clock += 5000; // the server takes 5 s
      return Promise.resolve();
    };
    const error: unknown = await operations
      .create(ctx, email(), { timeoutSeconds: 1, resource: "oncall" })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^the create of oncall did not finish within its custom timeout of 1 s: it took 5\.0 s, awaiting a request already sent; handler 1 is recorded$/,
    );
    expect(isPartialFailure(error)).toBe(true);
    expect((error as { id: string }).id).toBe("1");
    expect(api.store.size).toBe(1);
  });
});

describe("the options the dynamic provider's resource passes", () => {
  it("are what the program declared, each timeout in seconds", () => {
    expect(passedOptions({}, "oncall")).toBeUndefined();
    const passed = passedOptions(
      {
        ignoreChanges: ["name"],
        replaceOnChanges: ["email"],
        customTimeouts: { create: "1m30s", delete: "1.5h" },
      },
      "oncall",
    );
    expect(passed).toEqual({
      resource: "oncall",
      ignoreChanges: ["name"],
      replaceOnChanges: ["email"],
      customTimeouts: { create: 90, delete: 5400 },
    });
    expect(optionsIn({ __options: passed }, "delete")).toEqual({
      resource: "oncall",
      ignoreChanges: ["name"],
      replaceOnChanges: ["email"],
      timeoutSeconds: 5400,
    });
    expect(optionsIn({}, "update")).toEqual({});
  });

  it("refuse a timeout that is no duration, naming the option", () => {
    expect(durationSeconds("250ms", "update")).toBe(0.25);
    expect(durationSeconds(".5s", "update")).toBe(0.5);
    expect(durationSeconds("+1m", "update")).toBe(60);
    expect(durationSeconds("0", "update")).toBe(0);
    expect(() => durationSeconds("10 minutes", "update")).toThrow(
      'customTimeouts.update: "10 minutes" is not a duration such as "30s", "5m" or "1h30m"',
    );
  });
});
