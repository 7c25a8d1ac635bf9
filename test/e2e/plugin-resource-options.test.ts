/**
 * The engine records what a plugin's partial failure names: a Pulumi YAML program through the plugin
 * (its executable extracted from the tarball into a folder `plugins.providers` names), run with the
 * Pulumi CLI. The create is stored, then every read that would verify it loses its answer; the up
 * fails, and the state holds the handler with its id. The next up converges with no duplicate. The
 * gRPC detail itself is proved at the plugin's level: `integration/plugin-partial-failure`.
 * Then Pulumi's options through the plugin, on the same stack: a create past its `customTimeouts`
 * fails recording what it made, `import` takes over a handler made by hand, and `ignoreChanges`
 * keeps a name changed in the web UI through a refresh and a replacement (`replaceOnChanges`), whose
 * drift note still reads the UI's change as the UI's. And the engine's own options, which Pulumi YAML
 * has (`aliases`, `protect`, `retainOnDelete`, `deletedWith`, `dependsOn`, `additionalSecretOutputs`,
 * `hideDiffs`), `up --refresh`, `--target` and `pulumi state move`, on a stack of their own.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { HANDLER_RESOURCE_TOKEN } from "../../provider/tokens";
import {
  exportedResources,
  pluginProjectForTest,
  providerConfig,
  serverForTest,
} from "../support/engine/stacks";
import { storyStep } from "../support/story-step";

const HEADER = `name: partial-failure
runtime: yaml
plugins:
  providers:
    - name: notification-handlers
      path: plugin-bin
resources:
  inbox:
    type: notification-handlers:index:NotificationHandler
    properties:
      type: internal_notification
      name: Inbox
`;
const PROGRAM = `${HEADER}outputs:
  id: \${inbox.handlerId}
`;

/** The program with handlers that use Pulumi's options; `ops` imports handler `byHand`. */
const withOptions = (byHand: number, twilio: string): string => `${HEADER}  a:
    type: notification-handlers:index:NotificationHandler
    properties:
      type: twilio
      twilio: "${twilio}"
    options:
      ignoreChanges: [name]
      replaceOnChanges: [twilio]
  ops:
    type: notification-handlers:index:NotificationHandler
    properties:
      type: email
      name: Ops
      email: ops@example.com
    options:
      import: "${byHand}"
  late:
    type: notification-handlers:index:NotificationHandler
    properties:
      type: internal_notification
      name: Late
    options:
      customTimeouts:
        create: 300ms
outputs:
  a: \${a.handlerId}
`;

describe("Pulumi's options through the plugin under the engine", () => {
  it("leaves the handler in the state, and the next up converges with no duplicate", async () => {
    let failReads = true;
    let slowCreates = false;
    // Reads of single handlers are handled, then their connection is cut while armed: a lost answer.
    const server = await serverForTest({
      cutAfterHandling: (method, path) => failReads && method === "GET" && /\/\d+$/.test(path),
      delayMs: (method) => (slowCreates && method === "POST" ? 800 : 0),
    });
    const key = await server.newKey();
    const { folder, pulumi, mustPulumi } = await pluginProjectForTest(
      { program: PROGRAM },
      {
        ...providerConfig(server.url, key),
        // One retry of the read, not six, so the test does not wait out the backoff.
        "notification-handlers:maxRetries": "1",
      },
    );

    const failed = await pulumi("up", "--yes", "--skip-preview");
    const [made, ...others] = await server.handlers(key);
    expect(made, "the create reached the server").toBeDefined();
    expect(others).toEqual([]);
    expect(failed.code).not.toBe(0);
    expect(`${failed.stdout}${failed.stderr}`).toContain(`handler ${made!.id} exists, but`);

    const exported = await mustPulumi("stack", "export");
    const handlers = exportedResources(exported.stdout).filter((r) => r.type === HANDLER_RESOURCE_TOKEN);
    expect(handlers.map((r) => [r.urn.split("::").at(-1), r.id])).toEqual([["inbox", String(made!.id)]]);
    expect(handlers[0]?.outputs).toMatchObject({ handlerId: made!.id, name: "Inbox" });
    expect(exported.stdout.includes(key), "the API key in the exported state").toBe(false);

    failReads = false;
    await mustPulumi("up", "--yes", "--skip-preview");
    const output = await mustPulumi("stack", "output", "id");
    expect(output.stdout.trim()).toBe(String(made!.id));
    expect((await server.handlers(key)).map((h) => h.id)).toEqual([made!.id]);

    const byHand = await server.seed(key, {
      type: "email",
      name: "Ops (UI)",
      settings: { email: "ops@example.com" },
    });
    const a = await storyStep("a create past its custom timeout, beside an import", async () => {
      await writeFile(join(folder, "Pulumi.yaml"), withOptions(byHand, "+15551230001"));
      slowCreates = true;
      const late = await pulumi("up", "--yes", "--skip-preview");
      slowCreates = false;
      expect(late.code).not.toBe(0);
      const printed = `${late.stdout}${late.stderr}`;
      expect(printed).toContain("the create of late did not finish within its custom timeout of 0.3 s");
      expect(printed).toContain(`handler ${byHand} ("Ops (UI)", in the code "Ops") differs from the program`);
      expect(printed).toContain('name: live "Ops (UI)", desired "Ops" (changed outside the code)');
      const handlers = await server.handlers(key);
      expect(handlers.map((h) => h.name).sort()).toEqual(["Inbox", "Late", "Ops", "a"]);
      return handlers.find((h) => h.type === "twilio")!.id;
    });

    await storyStep("a name left to the web UI, through a refresh and a replacement", async () => {
      await server.edit(key, a, { name: "a (UI)", isEnabled: false });
      await mustPulumi("refresh", "--yes", "--skip-preview");
      await writeFile(join(folder, "Pulumi.yaml"), withOptions(byHand, "+15551230002"));
      const up = await mustPulumi("up", "--yes");
      expect(up.stdout).toContain(`handler ${a} ("a (UI)") differs from the program`);
      expect(up.stdout).toContain("isEnabled: live false, desired true (changed outside the code)");
      expect(up.stdout).not.toMatch(/^\s+name: live/m);
      expect(up.stdout).toMatch(/\+-1 replaced/);
      const handlers = await server.handlers(key);
      expect(handlers.map((h) => `${h.type} ${h.name} ${h.isEnabled}`).sort()).toEqual([
        "email Ops true",
        "internal_notification Inbox true",
        "internal_notification Late true",
        "twilio a (UI) true",
      ]);
      expect(handlers.find((h) => h.type === "twilio")?.id).not.toBe(a);
    });
    await mustPulumi("preview", "--expect-no-changes");
  });

  it("keeps the engine's own options' meaning: aliases, protect, retainOnDelete, deletedWith, dependsOn, additionalSecretOutputs, hideDiffs, up --refresh, --target, state move", async () => {
    const server = await serverForTest({});
    const key = await server.newKey();
    const inbox = (name: string, options = ""): string =>
      `    type: notification-handlers:index:NotificationHandler
    properties:
      type: internal_notification
      name: ${name}
${options}`;
    const program = (phase: number): string =>
      [
        HEADER.replace("  inbox:\n", "  guarded:\n").replace("name: Inbox", "name: Guarded") +
          "    options:\n      protect: true",
        // Declared before the mailbox, made after it: the order is dependsOn's alone.
        phase < 2
          ? `  owner:\n${inbox("Owner", "    options:\n      dependsOn:\n        - ${mailbox}\n")}`
          : "",
        phase < 2 ? `  owned:\n${inbox("Owned", "    options:\n      deletedWith: ${owner}\n")}` : "",
        phase < 1 ? `  kept:\n${inbox("Kept", "    options:\n      retainOnDelete: true\n")}` : "",
        phase < 1
          ? `  old-name:\n${inbox("Renamed")}`
          : `  new-name:\n${inbox("Renamed", "    options:\n      aliases:\n        - urn:pulumi:test::partial-failure::notification-handlers:index:NotificationHandler::old-name\n")}`,
        `  mailbox:
    type: notification-handlers:index:NotificationHandler
    properties:
      type: email
      name: ${phase > 0 ? "Mailbox (renamed)" : "Mailbox"}
      email: ${phase > 1 ? "box2@example.com" : "box@example.com"}
    options:
      additionalSecretOutputs: [email]
      hideDiffs: [name]
      dependsOn:
        - \${guarded}
`,
      ].join("\n");
    const { folder, pulumi, mustPulumi } = await pluginProjectForTest(
      { program: program(0) },
      providerConfig(server.url, key),
    );
    const handlers = async (): Promise<Map<string, number>> =>
      new Map((await server.handlers(key)).map((h) => [h.name, h.id]));

    await mustPulumi("up", "--yes", "--skip-preview");
    const before = await handlers();
    expect(before.get("Owner"), "dependsOn makes the owner after the mailbox").toBeGreaterThan(
      before.get("Mailbox")!,
    );
    await writeFile(join(folder, "Pulumi.yaml"), program(1));
    const renamed = await mustPulumi("up", "--yes", "--skip-preview", "--diff", "--refresh");
    expect(renamed.stdout).toContain("~ name (hidden)");
    const after = await handlers();
    expect(after.get("Renamed"), "the alias keeps the handler").toBe(before.get("Renamed"));
    expect(after.has("Kept"), "retainOnDelete keeps the handler").toBe(true);
    const exported = await mustPulumi("stack", "export");
    const mailbox = exportedResources(exported.stdout).find((r) => r.urn.endsWith("::mailbox"));
    expect(mailbox?.outputs?.email).toHaveProperty("ciphertext");

    // Only what --target names changes: `owner` and `owned` go, `owned` keeping its handler (it goes
    // with `owner`); the mailbox's new address waits.
    await writeFile(join(folder, "Pulumi.yaml"), program(2));
    const urn = (name: string): string =>
      `urn:pulumi:test::partial-failure::notification-handlers:index:NotificationHandler::${name}`;
    await mustPulumi("up", "--yes", "--skip-preview", "--target", urn("owner"), "--target", urn("owned"));
    const targeted = await server.handlers(key);
    expect(targeted.map((h) => h.name).sort()).toEqual([
      "Guarded",
      "Kept",
      "Mailbox (renamed)",
      "Owned",
      "Renamed",
    ]);
    expect(targeted.find((h) => h.type === "email")?.settings).toEqual({ email: "box@example.com" });

    // `pulumi state move` takes the mailbox, with its provider, to another stack, its handler as it was.
    await mustPulumi("stack", "init", "moved");
    await mustPulumi("state", "move", "--source", "test", "--dest", "moved", urn("mailbox"), "--yes");
    await mustPulumi("stack", "select", "test");
    const moved = exportedResources((await mustPulumi("stack", "export", "--stack", "moved")).stdout);
    const mailboxId = String((await handlers()).get("Mailbox (renamed)"));
    expect(moved.filter((r) => r.type === HANDLER_RESOURCE_TOKEN).map((r) => r.id)).toEqual([mailboxId]);

    // A destroy stops at the protected handler, which stays.
    const destroyed = await pulumi("destroy", "--yes", "--skip-preview");
    expect(destroyed.code).not.toBe(0);
    expect(`${destroyed.stdout}${destroyed.stderr}`).toMatch(/protect/);
    expect((await handlers()).has("Guarded")).toBe(true);
  });
});
