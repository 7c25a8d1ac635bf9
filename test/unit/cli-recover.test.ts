/** `recover`'s matching and state edit: pure functions over an exported state and an account's handlers. */
import { describe, expect, it } from "vitest";

import { applyRecovery } from "../../cli/recover-edit";
import { type Decision, planRecovery } from "../../cli/recover-plan";
import { type ExportedState, type StateResource, plainValue, secretValue } from "../../cli/state-json";
import { CONTRACT_1_SOURCE } from "../../provider/dynamic/provider-source";
import { DYNAMIC_RESOURCE_TYPE } from "../../provider/tokens";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";

const URN = `urn:pulumi:dev::p::${DYNAMIC_RESOURCE_TYPE}::`;
const SINCE = new Date("2026-05-01T12:00:00Z");
const AFTER = "2026-05-01 12:00:30";
const BEFORE = "2026-05-01 11:59:59";

function resource(name: string, inputs: Record<string, unknown>, id?: number): StateResource {
  return {
    urn: `${URN}${name}`,
    custom: true,
    type: DYNAMIC_RESOURCE_TYPE,
    ...(id === undefined ? {} : { id: String(id) }),
    inputs: { __provider: CONTRACT_1_SOURCE, ...inputs },
    provider: "urn:pulumi:dev::p::pulumi:providers:pulumi-nodejs::default::abc",
  };
}

const email = (n: string): Record<string, unknown> => ({
  type: "email",
  name: `Mail ${n}`,
  email: `${n}@x.io`,
});

function handler(
  id: number,
  values: Partial<NotificationHandlerRecord> & { settings?: Record<string, string> },
) {
  return {
    id,
    type: "email",
    name: "",
    settings: {},
    is_enabled: true,
    is_pending: false,
    last_datetime: null,
    datetime: AFTER,
    ...values,
  };
}
const mail = (id: number, n: string, datetime = AFTER): NotificationHandlerRecord =>
  handler(id, { name: `Mail ${n}`, settings: { email: `${n}@x.io` }, datetime });

function state(
  resources: StateResource[],
  pending: { resource: StateResource; type: string }[],
): ExportedState {
  return { version: 3, deployment: { resources, pending_operations: pending } };
}

function plan(
  s: ExportedState,
  handlers: NotificationHandlerRecord[],
  accountOf = (_r: StateResource) => "a",
) {
  return planRecovery({
    deployment: s.deployment,
    accountOf,
    handlers: new Map([["a", handlers]]),
    since: SINCE,
  });
}

const summary = (decisions: Decision[]): string[] =>
  decisions.map((d) => {
    const name = d.pending.resource.urn.split("::").pop();
    if (d.kind === "import") return `${name} import ${d.handler.id}`;
    if (d.kind === "refuse") return `${name} refuse [${d.candidates.join(",")}] ${d.reason}`;
    return `${name} ${d.kind}`;
  });

describe("planRecovery", () => {
  it("takes the one handler each pending create made and clears those that made none", () => {
    const s = state(
      [resource("done", email("done"), 7)],
      [
        { resource: resource("a", email("a")), type: "creating" },
        { resource: resource("b", email("b")), type: "creating" },
      ],
    );
    expect(summary(plan(s, [mail(7, "done"), mail(8, "a"), mail(9, "c")]))).toEqual([
      "a import 8",
      "b clear",
    ]);
  });

  it("refuses to guess between two fitting handlers, naming both, and decides the others", () => {
    const s = state(
      [],
      [
        { resource: resource("a", email("a")), type: "creating" },
        { resource: resource("b", email("b")), type: "creating" },
      ],
    );
    expect(summary(plan(s, [mail(8, "a"), mail(9, "a"), mail(10, "b")]))).toEqual([
      "a refuse [8,9] 2 handlers fit it (same values, made since the update began, in no resource)",
      "b import 10",
    ]);
  });

  it("never takes a handler made before the update, one a resource holds, or one of another account", () => {
    const held = resource("held", email("a"), 5);
    const s = state([held], [{ resource: resource("a", email("a")), type: "creating" }]);
    expect(summary(plan(s, [mail(4, "a", BEFORE), mail(5, "a")]))).toEqual(["a clear"]);
    const elsewhere = planRecovery({
      deployment: s.deployment,
      accountOf: (r) => (r.urn.endsWith("::a") ? "a" : "b"),
      handlers: new Map([["b", [mail(6, "a")]]]),
      since: SINCE,
    });
    expect(summary(elsewhere)).toEqual(["a clear"]);
  });

  it("counts a handler made in the update's first second, and none made in the one before", () => {
    const s = state([], [{ resource: resource("a", email("a")), type: "creating" }]);
    const since = new Date("2026-05-01T12:00:00.900Z");
    const at = (datetime: string) =>
      planRecovery({
        deployment: s.deployment,
        accountOf: () => "a",
        handlers: new Map([["a", [mail(3, "a", datetime)]]]),
        since,
      });
    expect(summary(at("2026-05-01 12:00:00"))).toEqual(["a import 3"]);
    expect(summary(at("2026-05-01 11:59:59"))).toEqual(["a clear"]);
  });

  it("matches through the cleaning deployed instances apply, and not a handler whose values differ", () => {
    const s = state(
      [],
      [
        {
          resource: resource("a", { type: "email", name: `Bob's "mail"`, email: "b@x.io" }),
          type: "creating",
        },
      ],
    );
    const cleaned = handler(3, { name: "Bob&#39;s &#34;mail&#34;", settings: { email: "b@x.io" } });
    const disabled = handler(4, { name: `Bob's "mail"`, settings: { email: "b@x.io" }, is_enabled: false });
    expect(summary(plan(s, [cleaned, disabled]))).toEqual(["a import 3"]);
  });

  it("gives twins (pending creates of the same values) one handler each", () => {
    const s = state(
      [],
      [
        { resource: resource("x", email("a")), type: "creating" },
        { resource: resource("y", email("a")), type: "creating" },
        { resource: resource("z", email("a")), type: "creating" },
      ],
    );
    expect(summary(plan(s, [mail(9, "a"), mail(8, "a")]))).toEqual(["x import 8", "y import 9", "z clear"]);
  });

  it("drops a handler's interrupted update or delete and refuses another provider's operation", () => {
    const other: StateResource = {
      urn: "urn:pulumi:dev::p::aws:s3/bucket:Bucket::b",
      type: "aws:s3/bucket:Bucket",
    };
    const s = state(
      [resource("gone", email("g"), 3)],
      [
        { resource: resource("gone", email("g"), 3), type: "deleting" },
        { resource: other, type: "creating" },
      ],
    );
    expect(summary(plan(s, []))).toEqual([
      "gone drop",
      "b refuse [] not a notification handler (aws:s3/bucket:Bucket): resolve it with `pulumi refresh` first",
    ]);
  });

  it("reads secret inputs as `--show-secrets` writes them, and refuses encrypted ones", () => {
    const slack = { type: "slack", name: "S", slack: secretValue("https://hooks.example/1") };
    const s = state([], [{ resource: resource("s", slack), type: "creating" }]);
    const live = handler(2, { type: "slack", name: "S", settings: { slack: "https://hooks.example/1" } });
    expect(summary(plan(s, [live]))).toEqual(["s import 2"]);
    const encrypted = {
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: "v1:x",
    };
    expect(() => plainValue({ slack: encrypted })).toThrow(/--show-secrets/);
  });
});

describe("applyRecovery", () => {
  it("records what a create records, secrets marked, and leaves no pending operation", () => {
    const slack = { type: "slack", name: "S", slack: secretValue("https://hooks.example/1") };
    const s = state(
      [{ urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", type: "pulumi:pulumi:Stack" }],
      [
        { resource: resource("s", slack), type: "creating" },
        { resource: resource("n", email("n")), type: "creating" },
      ],
    );
    const live = handler(2, { type: "slack", name: "S", settings: { slack: "https://hooks.example/1" } });
    const after = applyRecovery(s, plan(s, [live]));
    expect(after.deployment.pending_operations).toBeUndefined();
    expect(after.deployment.resources?.map((r) => [r.urn.split("::").pop(), r.id])).toEqual([
      ["p-dev", undefined],
      ["s", "2"],
    ]);
    const outputs = after.deployment.resources?.[1]?.outputs ?? {};
    expect(outputs.slack).toEqual(secretValue("https://hooks.example/1"));
    expect(outputs.settings).toEqual(secretValue({ slack: "https://hooks.example/1" }));
    expect(plainValue(outputs)).toMatchObject({
      __provider: CONTRACT_1_SOURCE,
      handlerId: 2,
      type: "slack",
      name: "S",
      isEnabled: true,
      pendingConfirmation: false,
      datetime: AFTER,
      lastDatetime: null,
    });
    expect(JSON.stringify(outputs)).not.toMatch(/"slack":"https/);
  });

  it("keeps a replaced resource, marked for deletion, before its replacement", () => {
    const old = resource("r", email("old"), 3);
    const s = state([old], [{ resource: resource("r", email("new")), type: "creating" }]);
    const after = applyRecovery(s, plan(s, [mail(3, "old"), mail(4, "new")]));
    expect(after.deployment.resources?.map((r) => [r.id, r.delete ?? false])).toEqual([
      ["3", true],
      ["4", false],
    ]);
  });

  it("never applies a plan with a refusal", () => {
    const s = state([], [{ resource: resource("a", email("a")), type: "creating" }]);
    expect(() => applyRecovery(s, plan(s, [mail(8, "a"), mail(9, "a")]))).toThrow(/refusal/);
  });
});
