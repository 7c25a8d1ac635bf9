/**
 * examples/yaml-program on the user's path: the plugin installed from its tarball with `pulumi plugin
 * install`, and the README's "Run it" steps run as written with the Pulumi CLI and Pulumi YAML's
 * language host: handlers on two sites (an explicit provider for the second), a lookup, drift named
 * field by field and repaired, an import whose generated code holds no secret; then destroy.
 */
import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { listAll, runItSteps, UserSession, type ReadmeStep } from "./user-path";

// As the README sets them.
const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX";
const DISCORD_WEBHOOK = "https://discord.com/api/webhooks/1/ops";
const BAD_WEBHOOK = "http://hooks.example.com/not-https-SECRET";

type Outputs = Record<"oncallId" | "pagerId" | "inboxId", number>;

describe("examples/yaml-program, run as its README says with the Pulumi CLI", () => {
  let session: UserSession | undefined;
  let staging: NotificationHandlersClient | undefined;
  let production: NotificationHandlersClient | undefined;
  let steps: ReadmeStep[] = [];
  let ids: Outputs | undefined;
  const summary = async (client: NotificationHandlersClient): Promise<string[]> =>
    (await listAll(client)).map((h) => `${h.type} ${h.name}`).sort();

  afterAll(async () => {
    await staging?.close();
    await production?.close();
    await session?.dispose();
  });

  it("installs the plugin from its tarball and brings the program up on two sites", async () => {
    steps = await runItSteps("yaml-program");
    expect(steps).toHaveLength(5);
    session = await UserSession.start("yaml-program", { pathFirst: inject("enginePath") });
    await session.step(steps[0]!);
    const key = await session.variable("KEY");
    staging = new NotificationHandlersClient({ baseURL: session.urls.get("8080")!, apiKey: key });
    production = new NotificationHandlersClient({
      baseURL: session.urls.get("8081")!,
      apiKey: await session.variable("PRODUCTION_KEY"),
    });

    const [install] = await session.step(steps[1]!);
    expect(`${install!.stdout}${install!.stderr}`).toContain("notification-handlers-0.2.0");
    const [up] = await session.step(steps[2]!);
    expect(up!.stdout).toMatch(/6 created/); // the stack, the second provider and four handlers
    // The lookup's result is secret, as it holds the handler's settings: its id with it.
    const outputs = await session.mustSh("pulumi stack output --json --show-secrets", false);
    ids = JSON.parse(outputs.stdout) as Outputs;

    expect(await summary(staging)).toEqual([
      "email On-call email",
      "internal_notification Status inbox",
      "slack Team Slack",
      "webhook Status page",
    ]);
    expect(await summary(production)).toEqual(["twilio Production pager"]);
    const handlers = await listAll(staging);
    expect(handlers.find((h) => h.name === "Status inbox")?.id).toBe(ids.inboxId);
    expect(handlers.find((h) => h.type === "slack")?.settings).toEqual({ slack: SLACK_WEBHOOK });
    expect(handlers.find((h) => h.type === "webhook")?.is_enabled).toBe(false);
    expect((await listAll(production))[0]?.id).toBe(ids.pagerId);
  });

  it("names the drifted field in a plain preview, and up repairs it", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const [repair] = await session!.step(steps[3]!);
    expect(repair!.stdout).toMatch(/~ name: /); // the preview's detailed diff
    expect(repair!.stdout).toMatch(/1 to update/);
    expect(repair!.stdout).toMatch(/1 updated/);
    expect((await staging!.notificationHandlers.retrieve(ids!.oncallId)).name).toBe("On-call email");
  });

  it("imports a handler made in the web UI with no write, and its code carries no secret", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const before = await listAll(staging!);
    const results = await session!.step(steps[4]!);
    const imported = results.map((r) => `${r.stdout}${r.stderr}`).join("\n");
    expect(imported).toMatch(/1 imported/);
    expect(imported).toContain("type: notification-handlers:NotificationHandler");
    expect(imported.includes(DISCORD_WEBHOOK), "the webhook in the generated code").toBe(false);
    const after = await listAll(staging!);
    // The handler the README made, as it made it, and nothing else changed.
    expect(after.filter((h) => h.type !== "discord")).toEqual(before);
    expect(after.filter((h) => h.type === "discord")).toMatchObject([
      { name: "Ops Discord", settings: { discord: DISCORD_WEBHOOK } },
    ]);
  });

  it("fails a preview on a value that breaks its rule, naming the resource, field and rule, writing nothing", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const s = session!;
    const before = await listAll(staging!);
    await s.mustSh(`printf '%s' ${BAD_WEBHOOK} | pulumi config set --secret slackWebhook`, false);
    const preview = await s.sh("pulumi preview");
    const printed = `${preview.stdout}\n${preview.stderr}`;
    expect(preview.code).not.toBe(0);
    expect(printed).toContain("resource 'team-slack' has a problem: slack must be an absolute https URL");
    expect(printed.includes(BAD_WEBHOOK), "the secret value in the message").toBe(false);
    expect(await listAll(staging!)).toEqual(before);
    await s.mustSh(`printf '%s' ${SLACK_WEBHOOK} | pulumi config set --secret slackWebhook`, false);
    await s.mustSh("pulumi preview --expect-no-changes");
  });

  it("keeps the keys and the webhooks out of the state and of everything printed", async () => {
    expect(ids, "the stack is up").toBeDefined();
    const s = session!;
    const state = await s.mustSh("pulumi stack export", false);
    expect(state.stdout).toContain("notification-handlers:index:NotificationHandler");
    const secrets = [
      await s.variable("KEY"),
      await s.variable("PRODUCTION_KEY"),
      SLACK_WEBHOOK,
      DISCORD_WEBHOOK,
    ];
    for (const secret of secrets) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }
  });

  it("destroys what the stack manages, the imported handler included, and leaves the inbox", async () => {
    expect(ids, "the stack is up").toBeDefined();
    await session!.mustSh("pulumi destroy --yes");
    expect(await summary(staging!)).toEqual(["internal_notification Status inbox"]);
    expect(await summary(production!)).toEqual([]);
  });
});
