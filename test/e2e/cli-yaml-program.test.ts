/**
 * examples/yaml-program on the user's path: the plugin installed with the README's `pulumi plugin
 * install --server`, from a stand-in of the GitHub release, and the README's "Run it" steps run as written with the Pulumi CLI and Pulumi YAML's
 * language host: handlers on two sites (an explicit provider for the second), a lookup, drift named
 * field by field and repaired, an import whose generated code holds no secret, the package's policy
 * pack (every configurable rule on the plugin's handlers and providers), refusals that show no
 * secret; then destroy.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import {
  destroyLeavingInbox,
  expectUpOnTwoSites,
  expectSecretsKept,
  repairDrift,
  siteKeys,
  sitesForTest,
} from "../support/engine/program-on-two-sites";
import { PLUGIN_PROVIDER_TYPE } from "../../provider/policy/handler-view";
import { HANDLER_RESOURCE_TOKEN } from "../../provider/tokens";
import { expectEventLogKeepsSecrets, runWithPolicies, violationLine } from "../support/engine/policy-pack";
import { expectRefusalsKeepSecrets } from "../support/engine/refusals";
import { pluginRelease } from "../support/stand-ins/registries";
import { storyStep } from "../support/story-step";
import { listAll, startExampleOnStandIns } from "../support/engine/user-path";

// As the README sets them.
const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX";
const DISCORD_WEBHOOK = "https://discord.com/api/webhooks/1/ops";
const BAD_WEBHOOK = "http://hooks.example.com/not-https-SECRET";
const STATUS_WEBHOOK = "https://status.example.com/hooks/uptime";

type Outputs = Record<"oncallId" | "pagerId" | "inboxId", number>;

describe("examples/yaml-program, run as its README says with the Pulumi CLI", () => {
  // One story: each step acts on the stack the steps before it left.
  it("brings the program up on two sites, repairs drift, imports, refuses a bad value, keeps secrets out, and destroys", async () => {
    const {
      session: s,
      steps,
      standIns: release,
    } = await startExampleOnStandIns("yaml-program", 5, pluginRelease);
    await s.step(steps[0]!);
    const sites = await sitesForTest(s);
    const { staging } = sites;

    await storyStep("install the plugin from the release", async () => {
      const [install] = await s.step(steps[1]!);
      expect(`${install!.stdout}${install!.stderr}`).toContain("notification-handlers-0.2.0");
      release.expectServed();
    });

    const ids = await storyStep("up on two sites", async () => {
      const [up] = await s.step(steps[2]!);
      expect(up!.stdout).toMatch(/6 created/); // the stack, the second provider and four handlers
      const { ids } = await expectUpOnTwoSites<Outputs>(s, sites, [
        "email On-call email",
        "internal_notification Status inbox",
        "slack Team Slack",
        "webhook Status page",
      ]);
      return ids;
    });

    await repairDrift(s, steps[3]!, sites, ids.oncallId, true);

    await storyStep("an import from the web UI: no write, no secret in its code", async () => {
      const before = await listAll(staging);
      const results = await s.step(steps[4]!);
      const imported = results.map((r) => `${r.stdout}${r.stderr}`).join("\n");
      expect(imported).toMatch(/1 imported/);
      expect(imported).toContain("type: notification-handlers:NotificationHandler");
      expect(imported.includes(DISCORD_WEBHOOK), "the webhook in the generated code").toBe(false);
      const after = await listAll(staging);
      // The handler the README made, as it made it, and nothing else changed.
      expect(after.filter((h) => h.type !== "discord")).toEqual(before);
      expect(after.filter((h) => h.type === "discord")).toMatchObject([
        { name: "Ops Discord", settings: { discord: DISCORD_WEBHOOK } },
      ]);
    });

    await storyStep("a value breaking its rule: preview fails naming resource, field, rule", async () => {
      const before = await listAll(staging);
      await s.mustSh(`printf '%s' ${BAD_WEBHOOK} | pulumi config set --secret slackWebhook`, false);
      const preview = await s.sh("pulumi preview");
      const printed = `${preview.stdout}\n${preview.stderr}`;
      expect(preview.code).not.toBe(0);
      expect(printed).toContain("resource 'team-slack' has a problem: slack must be an absolute https URL");
      expect(printed.includes(BAD_WEBHOOK), "the secret value in the message").toBe(false);
      expect(await listAll(staging)).toEqual(before);
      await s.mustSh(`printf '%s' ${SLACK_WEBHOOK} | pulumi config set --secret slackWebhook`, false);
      await s.mustSh("pulumi preview --expect-no-changes");
    });

    await storyStep(
      "the policy pack on the plugin's handlers and providers: each rule names resource and field",
      async () => {
        const staged = s.urls.get("8080")!;
        // The pager named as the on-call email for this preview alone: unique-names is on by default.
        const program = join(s.project, "Pulumi.yaml");
        const text = await readFile(program, "utf8");
        await writeFile(program, text.replace("name: Production pager", "name: On-call email"));
        const { code, printed, events } = await runWithPolicies(s, {
          "destination-hosts": { allowedHosts: ["hooks.slack.com", "discord.com"] },
          "email-domains": { enforcementLevel: "advisory", allowedDomains: ["example.org"] },
          "phone-country-codes": { enforcementLevel: "advisory", allowedCountryCodes: ["44"] },
          "api-sites": { enforcementLevel: "advisory", allowedSites: [staged] },
          "handler-types": {
            enforcementLevel: "advisory",
            allowedTypes: ["email", "slack", "discord", "twilio"],
          },
          "keeps-enabled-handler": { enforcementLevel: "advisory", requiredTypes: ["webhook"] },
        });
        await writeFile(program, text);
        expect(code, printed).not.toBe(0);
        const handler = (level: "mandatory" | "advisory", rule: string, name: string): RegExp =>
          violationLine(level, rule, HANDLER_RESOURCE_TOKEN, name);
        expect(printed).toMatch(handler("mandatory", "destination-hosts", "status-page"));
        expect(printed).toMatch(handler("advisory", "email-domains", "oncall"));
        expect(printed).toMatch(handler("advisory", "phone-country-codes", "production-pager"));
        expect(printed).toMatch(handler("advisory", "handler-types", "status-page"));
        expect(printed).toMatch(violationLine("advisory", "api-sites", PLUGIN_PROVIDER_TYPE, "production"));
        for (const name of ["oncall", "production-pager"])
          expect(printed).toMatch(handler("mandatory", "unique-names", name));
        for (const message of [
          'handler "status-page" (webhook): field webhook (a secret, not shown) points at a host not in allowedHosts',
          'handler "oncall" (email): field email: domain "example.com" is not in allowedDomains',
          'handler "production-pager" (twilio): field twilio: the number\'s country code is not in allowedCountryCodes',
          'handler "status-page" (webhook): field type: "webhook" is not in allowedTypes',
          'provider "production": baseUrl is not one of allowedSites',
          'the stack has no enabled handler of type webhook (disabled: "status-page"; field isEnabled)',
          'handler "oncall" (email): field name "On-call email" is also the name of "production-pager"',
        ])
          expect(printed).toContain(message);
        // Only the rules the config broke: none of the slack or discord handlers, nor the default provider.
        expect(printed.match(/\[(mandatory|advisory)\]/g)).toHaveLength(8);
        await expectEventLogKeepsSecrets(events, [
          ...(await siteKeys(s)),
          SLACK_WEBHOOK,
          DISCORD_WEBHOOK,
          STATUS_WEBHOOK,
        ]);
      },
    );

    await expectRefusalsKeepSecrets(s, "plugin");
    await expectSecretsKept(s, [...(await siteKeys(s)), SLACK_WEBHOOK, DISCORD_WEBHOOK, STATUS_WEBHOOK]);
    await destroyLeavingInbox(s, sites, "destroy, the imported handler included, which leaves the inbox");
  });
});
