/**
 * examples/yaml-handlers on the user's path: the README's "Run it" steps as written, with the real
 * Pulumi CLI. Handlers come from two YAML files; a teammate's added handler shows in the preview
 * and the PR summary; a file that breaks rules fails `validate` with its lines, and `pulumi up` of it
 * changes nothing; a key renamed with `was` updates in place; drift is shown and repaired.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import type { NotificationHandlerRecord } from "../../sdk/client/resources/handler-parsing";
import { listAll, runItSteps, UserSession, type ReadmeStep } from "./user-path";

const WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it
const BROKEN_WEBHOOK = "https://hooks.slack.com/services/T000/B000/SEARCH"; // written in a broken file

describe("examples/yaml-handlers, run as its README says with the Pulumi CLI", () => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;
  let steps: ReadmeStep[] = [];
  let key = "";

  const byName = async (): Promise<Map<string, NotificationHandlerRecord>> =>
    new Map((await listAll(client!)).map((h) => [h.name, h]));

  afterAll(async () => {
    await client?.close();
    await session?.dispose();
  });

  it("brings up the handlers of two files", async () => {
    steps = await runItSteps("yaml-handlers");
    expect(steps).toHaveLength(6);
    session = await UserSession.start("yaml-handlers", { pathFirst: inject("enginePath") });
    await session.step(steps[0]!);
    key = await session.variable("KEY");
    client = new NotificationHandlersClient({ baseURL: session.url!, apiKey: key, maxRetries: 0 });

    const [up] = await session.step(steps[1]!);
    expect(up!.stdout).toContain("4 handlers in 2 files: no problems");
    const handlers = await byName();
    expect([...handlers.keys()].sort()).toEqual([
      "Payments pager",
      "Payments status inbox",
      "Platform Slack",
      "Platform on-call",
    ]);
    expect(handlers.get("Platform Slack")).toMatchObject({ type: "slack", settings: { slack: WEBHOOK } });
    expect(handlers.get("Payments pager")).toMatchObject({ settings: { twilio: "+15551230001" } });
  });

  it("shows a teammate's added handler in the preview and the PR summary, then makes it", async () => {
    expect(client, "the stack is up").toBeDefined();
    const [review] = await session!.step(steps[2]!);
    expect(review!.stdout).toContain('| create | `payments-oncall` | new: "Payments on-call" |');
    expect(review!.stdout).toContain("1 to create.");
    expect((await byName()).get("Payments on-call")).toMatchObject({
      type: "email",
      settings: { email: "payments-oncall@example.com" },
    });
  });

  it("refuses a file that breaks rules, naming each line, and an up of it changes nothing", async () => {
    expect(client, "the stack is up").toBeDefined();
    const before = await listAll(client!);
    const validate = await session!.sh(steps[3]!.code);
    expect(validate.code).toBe(1);
    const readme = await readFile(join(session!.project, "README.md"), "utf8");
    const shown = /```\n(handlers\/search\.yaml:[\s\S]*?)```/.exec(readme)![1]!;
    // What the README shows is what the command prints: the problems, then their count on stderr.
    const lines = shown.trimEnd().split("\n");
    expect(validate.stdout).toBe(`${lines.slice(0, -1).join("\n")}\n`);
    expect(validate.stderr).toContain(`${lines.at(-1)!}\n`);

    const up = await session!.sh("pulumi up --yes");
    expect(up.code).not.toBe(0);
    const printed = `${up.stdout}\n${up.stderr}`;
    expect(printed).toContain("the handler set has 2 problems; nothing was changed:");
    expect(printed).toContain(
      "handlers/search.yaml:4:11: search-pager.twilio: must be a phone number in E.164 form",
    );
    expect(await listAll(client!)).toEqual(before);
  });

  it("takes the fix, and updates a handler whose key was renamed with was in place", async () => {
    expect(client, "the stack is up").toBeDefined();
    const inbox = (await byName()).get("Payments status inbox")!;
    await session!.step(steps[4]!);
    const handlers = await byName();
    expect(handlers.get("Payments status")?.id).toBe(inbox.id);
    expect(handlers.get("Search pager")).toMatchObject({ settings: { twilio: "+15550100" } });
    expect(handlers.size).toBe(6);
  });

  it("shows drift made in the API on a handler of a file, and repairs it", async () => {
    expect(client, "the stack is up").toBeDefined();
    const oncall = (await byName()).get("Platform on-call")!;
    const [repair] = await session!.step(steps[5]!);
    expect(repair!.stdout).toContain(`handler ${oncall.id} ("Platform on-call") differs from the program`);
    expect((await client!.notificationHandlers.retrieve(oncall.id)).settings).toMatchObject({
      email: "platform-oncall@example.com",
    });
  });

  it("keeps the secrets out of the state and of everything printed, and destroys what it made", async () => {
    expect(client, "the stack is up").toBeDefined();
    const state = await session!.mustSh("pulumi stack export", false);
    for (const secret of [key, WEBHOOK, BROKEN_WEBHOOK]) {
      expect(state.stdout.includes(secret), "a secret in the state").toBe(false);
      expect(session!.transcript.join("\n").includes(secret), "a secret in the output").toBe(false);
    }
    await session!.mustSh("pulumi destroy --yes");
    expect(await listAll(client!)).toEqual([]);
  });
});
