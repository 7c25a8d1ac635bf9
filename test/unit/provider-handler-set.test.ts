/**
 * The `HandlerSet` component under Pulumi's mocks: one `NotificationHandler` per entry with the set's
 * options, secrets from the stack's config, and nothing registered when a file or a secret is wrong.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { HandlerSet, HandlerSetError } from "../../provider/dynamic/handler-set";

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const WEBHOOK = "https://hooks.slack.com/services/T0/B0/FROM-CONFIG";
const registered: { name: string; type: string; inputs: Record<string, unknown> }[] = [];
let folder: string;

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args: pulumi.runtime.MockResourceArgs) => {
        const inputs = args.inputs as Record<string, unknown>;
        registered.push({ name: args.name, type: args.type, inputs });
        return { id: `${registered.length}`, state: { ...inputs, handlerId: registered.length } };
      },
      call: (args: pulumi.runtime.MockCallArgs) => args.inputs as Record<string, unknown>,
    },
    "project",
    "stack",
  );
  pulumi.runtime.setAllConfig(
    { "project:slackHook": WEBHOOK, "team:hook": WEBHOOK, "project:badHook": "not-a-url-SECRET" },
    ["project:slackHook", "team:hook", "project:badHook"],
  );
  folder = await mkdtemp(join(tmpdir(), "handler-set-"));
  await writeFile(join(folder, "a.yaml"), "ops:\n  type: email\n  email: ops@example.com\n");
  await writeFile(join(folder, "b.yaml"), "hook:\n  type: slack\n  slack: { secret: team:hook }\n");
  await writeFile(
    join(folder, "missing.yaml"),
    "other:\n  type: slack\n  slack: { secret: notSet }\nbad:\n  type: slack\n  slack: { secret: badHook }\n",
  );
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Waits until the engine (the mocks) has every handler of the set. */
const settled = (set: HandlerSet): Promise<unknown> =>
  Promise.all(Object.values(set.handlers).map((h) => new Promise((resolve) => h.handlerId.apply(resolve))));

const inputsOf = (name: string): Record<string, unknown> =>
  registered.find((r) => r.name === name && r.type.endsWith("NotificationHandler"))!.inputs;

describe("HandlerSet", () => {
  it("declares a handler per entry of the files, keyed by its resource name", async () => {
    const set = new HandlerSet("alerts", { files: [join(folder, "[ab].yaml")] });
    await settled(set);
    expect(Object.keys(set.handlers).sort()).toEqual(["hook", "ops"]);
    expect(registered.some((r) => r.name === "alerts" && r.type.endsWith(":HandlerSet"))).toBe(true);
    expect(inputsOf("ops")).toMatchObject({ type: "email", name: "ops", email: "ops@example.com" });
    // The secret comes from the stack's config, and goes to the engine as a secret.
    expect(inputsOf("hook").slack).toEqual({
      [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270",
      value: WEBHOOK,
    });
  });

  it("gives every handler of a set given as data the set's options", async () => {
    const set = new HandlerSet("data", {
      handlers: {
        inbox: { type: "internal_notification", name: "Inbox", isEnabled: false },
        chat: { type: "slack", slack: { secret: "slackHook" }, adopt: 12 },
      },
      updateStrategy: "replace",
    });
    await settled(set);
    expect(Object.keys(set.handlers)).toEqual(["inbox", "chat"]);
    expect(inputsOf("inbox")).toMatchObject({ name: "Inbox", isEnabled: false, updateStrategy: "replace" });
    expect(inputsOf("chat")).toMatchObject({ adopt: 12, updateStrategy: "replace" });
  });

  it("registers nothing when a file has a problem or a secret is not in the config", () => {
    const before = registered.length;
    const problems = (args: ConstructorParameters<typeof HandlerSet>[1]): string[] => {
      try {
        new HandlerSet("broken", args);
      } catch (error) {
        expect(error).toBeInstanceOf(HandlerSetError);
        expect(pulumi.RunError.isInstance(error)).toBe(true);
        return (error as Error).message.split("\n");
      }
      throw new Error("the set was taken");
    };
    const configProblems = problems({ files: [join(folder, "missing.yaml")] });
    expect(configProblems).toEqual([
      "the handler set has 2 problems; nothing was changed:",
      `${join(folder, "missing.yaml")}:3:10: other.slack: the stack's config has no value for its secret key: set it with \`pulumi config set --secret <key> ...\``,
      `${join(folder, "missing.yaml")}:6:10: bad.slack: the value in the stack's config must be an absolute https URL`,
    ]);
    expect(configProblems.join("\n")).not.toContain("SECRET");
    expect(problems({ files: [join(folder, "none-*.yaml")] })).toEqual([
      "the handler set has 1 problem; nothing was changed:",
      `${join(folder, "none-*.yaml")}: no file matches`,
    ]);
    expect(problems({ handlers: { x: { type: "email" } } })).toEqual([
      "the handler set has 1 problem; nothing was changed:",
      "handlers: x.email: is required for type email",
    ]);
    expect(() => new HandlerSet("both", { files: [], handlers: {} })).toThrow(/either files .* or handlers/);
    expect(registered.length).toBe(before);
  });
});
