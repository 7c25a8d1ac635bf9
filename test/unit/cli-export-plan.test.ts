/**
 * The export's plan and files: names, values that preview clean, no secret in any file, handlers kept
 * when their resources go unless the export hands them over, and what the first preview shows.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { planExport, programValue, slugOf } from "../../cli/export-plan";
import { renderProject } from "../../cli/project-files";
import { chooseUpdateStrategy } from "../../cli/update-strategy";
import { fieldByProperty } from "../../sdk/client/domain/catalog";
import { cleanLikeDeployed, equalAfterCleaning } from "../../sdk/client/domain/cleaning";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import { readSetFiles } from "../../provider/handler-sets/format";
import { checkInputs, desiredFrom, differences, toLive } from "../../provider/core/inputs";

const handler = (
  id: number,
  type: string | null,
  name: string,
  settings: Record<string, string> = {},
  isEnabled = true,
): NotificationHandlerRecord => ({
  id,
  type,
  name,
  settings,
  is_enabled: isEnabled,
  is_pending: false,
  last_datetime: null,
  datetime: "2026-11-23 10:00:00",
});

/** What the files say beyond the plan, for an account on the reference server. */
const PROJECT = {
  project: "acct",
  baseUrl: "https://status.example.com",
  packageSpec: "^0.1.0",
  updateStrategy: chooseUpdateStrategy(undefined, "reference"),
};

const SLACK = "https://hooks.slack.com/services/T000/B000/SECRET1";
const X = {
  x_consumer_key: "ck-SECRET2",
  x_consumer_secret: "cs-SECRET3",
  x_access_token: "at-SECRET4",
  x_access_token_secret: "ats-SECRET5",
};

describe("planExport", () => {
  it("names resources after handlers, readable and unique, the same on every export", () => {
    const handlers = [
      handler(7, "email", "Ops &#34;primary&#34; <b>", { email: "ops@example.com" }),
      handler(3, "internal_notification", "Duplicate"),
      handler(9, "internal_notification", "Duplicate"),
      handler(4, "internal_notification", "duplicate 9"),
      handler(5, "internal_notification", "Équipe & co"),
      handler(6, "internal_notification", "!!!"),
      handler(8, "internal_notification", "123 start"),
    ];
    const plan = planExport(handlers);
    expect(plan.handlers.map((h) => [h.id, h.resourceName, h.variable])).toEqual([
      [3, "duplicate-3", "duplicate3"],
      [4, "duplicate-9", "duplicate9"],
      [5, "equipe-co", "equipeCo"],
      [6, "internal-notification", "internalNotification"],
      [7, "ops-primary-b", "opsPrimaryB"],
      [8, "123-start", "handler123Start"],
      [9, "duplicate-9-9", "duplicate99"],
    ]);
    expect(planExport([...handlers].reverse()).handlers.map((h) => h.resourceName)).toEqual(
      plan.handlers.map((h) => h.resourceName),
    );
  });

  it("keeps values as the API has them, so the provider sees no difference", () => {
    const live = [
      handler(1, "email", "It&#39;s &#34;ops&#34; & co", { email: "ops@example.com" }),
      handler(2, "whatsapp", "WhatsApp", { whatsapp: "15551234567" }),
      handler(3, "twilio", "SMS", { twilio: "+15551234567" }, false),
    ];
    const plan = planExport(live);
    expect(plan.handlers).toHaveLength(3);
    const [email, whatsapp, sms] = plan.handlers;
    expect(email!.name).toBe("It&#39;s &#34;ops&#34; & co");
    expect(whatsapp!.fields).toEqual([expect.objectContaining({ kind: "plain", value: "+15551234567" })]);
    expect(sms!.isEnabled).toBe(false);
    for (const [i, exported] of plan.handlers.entries()) {
      const inputs: Record<string, unknown> = {
        type: exported.type,
        name: exported.name,
        isEnabled: exported.isEnabled,
      };
      for (const f of exported.fields) if (f.kind === "plain") inputs[f.spec.property] = f.value;
      expect(checkInputs(inputs)).toEqual([]);
      expect(differences(desiredFrom(inputs), toLive(live[i]!))).toEqual([]);
    }
    expect(plan.warnings).toEqual([]);
  });

  it("puts every secret into config keys and none into the files", () => {
    const plan = planExport([
      handler(1, "slack", "Team Slack", { slack: SLACK }),
      handler(2, "x", "X bot", X),
      handler(3, "telegram", "Telegram", { telegram: "123:SECRET6", telegram_chat_id: "-100" }),
    ]);
    expect(plan.secrets.map((s) => [s.configKey, s.handlerId])).toEqual([
      ["team-slack.slack", 1],
      ["x-bot.xConsumerKey", 2],
      ["x-bot.xConsumerSecret", 2],
      ["x-bot.xAccessToken", 2],
      ["x-bot.xAccessTokenSecret", 2],
      ["telegram.telegram", 3],
    ]);
    const files = renderProject(plan, PROJECT);
    const all = Object.values(files).join("\n");
    for (const secret of [SLACK, ...Object.values(X), "123:SECRET6"]) expect(all).not.toContain(secret);
    expect(files["index.ts"]).toContain('slack: config.requireSecret("team-slack.slack"),');
    expect(files["index.ts"]).toContain('telegramChatId: "-100",');
    expect(files["README.md"]).toContain("pulumi config set --secret x-bot.xAccessToken");
  });

  it("asks for the Node.js the @pulumi/pulumi it installs asks for, and says so in its README", () => {
    const files = renderProject(planExport([]), PROJECT);
    const manifest = JSON.parse(files["package.json"]!) as {
      dependencies: Record<string, string>;
      engines: { node: string };
    };
    // The range's lowest version is the one this package is built with: the devDependency.
    const pulumi = JSON.parse(
      readFileSync(join(__dirname, "..", "..", "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
    ) as { version: string; engines: { node: string } };
    expect(manifest.dependencies["@pulumi/pulumi"]).toBe(`^${pulumi.version}`);
    expect(manifest.engines.node).toBe(pulumi.engines.node);
    expect(files["README.md"]).toContain(`It needs Node.js ${pulumi.engines.node.slice(2)} or later`);
  });

  it("writes a handler set as YAML that reads back as the plan, secrets as config references", () => {
    const live = [
      handler(1, "slack", "Team's Slack: #ops", { slack: SLACK }),
      handler(2, "x", "X bot", X),
      handler(3, "telegram", 'It&#39;s "chat" & co', { telegram: "123:SECRET6", telegram_chat_id: "-100" }),
      handler(4, "whatsapp", "WhatsApp", { whatsapp: "15551234567" }),
      handler(5, "twilio", "true", { twilio: "+15551234567" }, false),
      handler(6, "email", "- yes", { email: "ops@example.com" }),
    ];
    const plan = planExport(live);
    const files = renderProject(plan, { ...PROJECT, format: "yaml" });
    const all = Object.values(files).join("\n");
    for (const secret of [SLACK, ...Object.values(X), "123:SECRET6"]) expect(all).not.toContain(secret);
    const yaml = files["handlers.yaml"]!;
    expect(yaml.split("\n")[0]).toBe(
      "# yaml-language-server: $schema=./node_modules/pulumi-notification-handlers/docs/handler-set.schema.json",
    );
    expect(yaml).toContain("  slack: { secret: team-s-slack-ops.slack }\n");
    expect(files["index.ts"]).toContain('new HandlerSet("handlers", { files: ["handlers.yaml"] }');

    const { entries, problems } = readSetFiles([{ file: "handlers.yaml", text: yaml }]);
    expect(problems).toEqual([]);
    expect(plan.handlers).toHaveLength(live.length);
    expect(entries).toHaveLength(live.length);
    for (const [i, exported] of plan.handlers.entries()) {
      const entry = entries[i]!;
      expect(entry).toMatchObject({ key: exported.resourceName, type: exported.type, name: exported.name });
      expect(entry.adopt).toBe(exported.id);
      expect(entry.isEnabled ?? true).toBe(exported.isEnabled);
      expect(entry.fields).toEqual(
        Object.fromEntries(
          exported.fields.map((f) => [
            f.spec.property,
            f.kind === "secret" ? { secret: f.configKey } : f.value,
          ]),
        ),
      );
    }
  });

  it("keeps every handler in the account when its resource goes, unless --full-ownership", () => {
    const plan = planExport([
      handler(1, "email", "Ops", { email: "ops@example.com" }),
      handler(2, "internal_notification", "Inbox"),
    ]);
    const typescript = renderProject(plan, PROJECT);
    expect(typescript["index.ts"]!.match(/^\}, \{ retainOnDelete: true \}\);$/gm)).toHaveLength(2);
    expect(typescript["README.md"]).toContain("Every handler has Pulumi's `retainOnDelete: true`");
    const owned = renderProject(plan, { ...PROJECT, fullOwnership: true });
    expect(owned["index.ts"]).not.toContain("retainOnDelete");
    expect(owned["index.ts"]!.match(/^\}\);$/gm)).toHaveLength(2);
    expect(owned["README.md"]).toContain("The program owns its handlers");

    // In YAML the entries are data: the option reaches each handler through the set's transformation.
    const yaml = renderProject(plan, { ...PROJECT, format: "yaml" })["index.ts"]!;
    expect(yaml).toContain("opts: { ...opts, retainOnDelete: true },");
    expect(yaml).toContain(
      'new HandlerSet("handlers", { files: ["handlers.yaml"] }, { transformations: [retainOnDelete] });',
    );
    const ownedYaml = renderProject(plan, { ...PROJECT, format: "yaml", fullOwnership: true })["index.ts"]!;
    expect(ownedYaml).not.toContain("retainOnDelete");
    expect(ownedYaml).toContain('new HandlerSet("handlers", { files: ["handlers.yaml"] });');
  });

  it("says what the first preview shows: every resource to create, each a takeover", () => {
    const plan = planExport([handler(1, "email", "Ops", { email: "ops@example.com" })]);
    const readme = renderProject(plan, PROJECT)["README.md"]!;
    expect(readme).toContain("`+ 2 to create` (the stack and 1 handler)");
    expect(readme).toContain("pulumi preview                       # + 2 to create\n");
    const yaml = renderProject(plan, { ...PROJECT, format: "yaml" })["README.md"]!;
    expect(yaml).toContain("`+ 3 to create` (the stack, the handler set and 1 handler)");
  });

  it("leaves out handlers without a usable type and says why", () => {
    const plan = planExport([handler(1, null, "Wiped"), handler(2, "pager_duty", "Pager")]);
    expect(plan.handlers).toEqual([]);
    expect(plan.skipped.map((s) => [s.id, s.name])).toEqual([
      [1, "Wiped"],
      [2, "Pager"],
    ]);
    expect(plan.skipped[0]!.reason).toContain("no type");
    expect(plan.skipped[1]!.reason).toBe('its type "pager_duty" is not one this package knows');
    const files = renderProject(plan, PROJECT);
    expect(files["README.md"]).toContain("## Not exported");
    expect(files["index.ts"]).not.toContain("pulumi.Config");
  });

  it("warns, without the value, about a secret the provider's check refuses", () => {
    const plan = planExport([handler(1, "webhook", "Hook", { webhook: "not a url SECRET7" })]);
    expect(plan.warnings).toEqual([
      'handler 1 ("Hook"): webhook must be an absolute http or https URL; correct it before `pulumi up`',
    ]);
    expect(plan.warnings.join()).not.toContain("SECRET7");
  });
});

describe("programValue", () => {
  it("gives an integer whatsapp number back its +, which the server cleans away again", () => {
    const spec = fieldByProperty("whatsapp")!;
    expect(programValue(spec, "15551234567")).toBe("+15551234567");
    expect(cleanLikeDeployed("whatsapp", "+15551234567")).toBe("15551234567");
    expect(equalAfterCleaning("whatsapp", "+15551234567", "15551234567")).toBe(true);
  });

  it("keeps a value the check takes as it is", () => {
    expect(programValue(fieldByProperty("webhook")!, "https://example.com/a?b=1&amp;c=&#39;2&#39;")).toBe(
      "https://example.com/a?b=1&amp;c=&#39;2&#39;",
    );
  });
});

describe("slugOf", () => {
  it("reads entities as characters and keeps lowercase ASCII words", () => {
    expect(slugOf("Ops &#34;primary&#34; &amp; Co")).toBe("ops-primary-co");
    expect(slugOf("Ünïcödé ✓ name")).toBe("unicode-name");
    expect(slugOf("&#99999999;")).toBe("99999999");
    expect(slugOf("x".repeat(100))).toHaveLength(48);
  });
});
