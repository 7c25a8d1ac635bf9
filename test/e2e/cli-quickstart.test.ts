/**
 * examples/quickstart on the user's path: the packed package installed into a copy of the example
 * outside the repository, the README's "Run it" steps run as written with the real Pulumi CLI, then
 * the rest of the drift story (a changed secret, refresh, the state, destroy) as commands.
 */
import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { NotFoundError } from "../../sdk/client/errors";
import { REGISTRY_SNAPSHOT } from "../../scripts/user-project";
import type { NotificationHandlerRecord } from "../../sdk/client/resources/handler-parsing";
import { installedVersion, listAll, runItSteps, UserSession, type ReadmeStep } from "./user-path";

const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it
const CHANGED_WEBHOOK = "https://hooks.slack.com/services/T000/B000/CHANGED-IN-THE-UI";

describe("examples/quickstart, run as its README says with the Pulumi CLI", () => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;
  let steps: ReadmeStep[] = [];
  let key = "";
  let ids: Record<"oncallId" | "slackId" | "pagerId" | "inboxId", number>;

  afterAll(async () => {
    await client?.close();
    await session?.dispose();
  });

  it("installs the packed package, starts the server and brings the stack up", async () => {
    const pathFirst = inject("enginePath");
    steps = await runItSteps("quickstart");
    expect(steps).toHaveLength(4);
    session = await UserSession.start("quickstart", { pathFirst });

    await session.step(steps[0]!);
    key = await session.variable("KEY");
    expect(key.length).toBeGreaterThanOrEqual(16);
    expect(session.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // What npm installed is the packed package, and the program's own @pulumi/pulumi: the newest 3.x
    // of the registry snapshot the tests install from.
    const installed = await session.mustSh("npm ls pulumi-notification-handlers --json", false);
    expect(installed.stdout).toContain(".tgz");
    expect(await installedVersion(session, "@pulumi/pulumi")).toBe(REGISTRY_SNAPSHOT.newestPulumi);
    client = new NotificationHandlersClient({ baseURL: session.url!, apiKey: key, maxRetries: 0 });

    const [up] = await session.step(steps[1]!);
    expect(up!.stdout).toMatch(/5 created/);
    const outputs = await session.mustSh("pulumi stack output --json");
    ids = JSON.parse(outputs.stdout) as typeof ids;
    const handlers = await listAll(client);
    const byId = (id: number): NotificationHandlerRecord | undefined => handlers.find((h) => h.id === id);
    expect(handlers).toHaveLength(4);
    expect(byId(ids.oncallId)).toMatchObject({
      type: "email",
      name: "On-call email",
      settings: { email: "oncall@example.com" },
    });
    expect(byId(ids.slackId)).toMatchObject({
      type: "slack",
      name: "Team Slack",
      settings: { slack: SLACK_WEBHOOK },
    });
    expect(byId(ids.pagerId)).toMatchObject({ type: "twilio", name: "Pager SMS", is_enabled: true });
    expect(byId(ids.inboxId)).toMatchObject({ type: "internal_notification", name: "Status inbox" });
  });

  it("shows a rename and a delete made in the API in preview; up repairs them", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const s = session!;
    await s.step(steps[2]!);
    expect((await client!.notificationHandlers.retrieve(ids.oncallId)).name).toBe("Renamed in the web UI");
    await expect(client!.notificationHandlers.retrieve(ids.pagerId)).rejects.toBeInstanceOf(NotFoundError);

    const [repair] = await s.step(steps[3]!);
    const printed = repair!.stdout;
    // The preview: the edit and the delete, without --refresh.
    expect(printed).toContain(`handler ${ids.oncallId} ("On-call email") differs from the program`);
    expect(printed).toContain(`handler ${ids.pagerId} ("Pager SMS") no longer exists in the API`);

    const handlers = await listAll(client!);
    expect(handlers).toHaveLength(4);
    expect(handlers.find((h) => h.id === ids.oncallId)?.name).toBe("On-call email");
    const pager = handlers.find((h) => h.type === "twilio");
    expect(pager?.name).toBe("Pager SMS");
    expect(pager?.id).not.toBe(ids.pagerId);
  });

  it("shows a secret changed in the API without printing it, and up puts it back", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const s = session!;
    await client!.notificationHandlers.update(ids.slackId, { slack: CHANGED_WEBHOOK });

    const preview = await s.mustSh("pulumi preview --diff");
    const printed = `${preview.stdout}\n${preview.stderr}`;
    expect(printed).toContain(`handler ${ids.slackId} ("Team Slack") differs from the program`);
    expect(printed).toMatch(/team-slack\][^~]*slack\s*: \[secret\]/);
    expect(printed).toContain("slack: live [secret], desired [secret]");

    await s.mustSh("pulumi up --yes");
    expect((await client!.notificationHandlers.retrieve(ids.slackId)).settings).toMatchObject({
      slack: SLACK_WEBHOOK,
    });

    await s.mustSh("pulumi refresh --yes");
    await s.mustSh("pulumi preview --expect-no-changes");
  });

  it("keeps the API key and the webhook URL out of the state and of everything printed", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const s = session!;
    const state = await s.mustSh("pulumi stack export", false);
    expect(state.stdout).toContain("notification-handlers:NotificationHandler");
    for (const secret of [key, SLACK_WEBHOOK, CHANGED_WEBHOOK]) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }
  });

  it("destroys every handler it made", async () => {
    expect(ids, "the stack is up").toBeDefined();
    await session!.mustSh("pulumi destroy --yes");
    expect(await listAll(client!)).toEqual([]);
  });
});
