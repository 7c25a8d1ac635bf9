/**
 * The tests of the examples that declare yaml-program's handlers in a general-purpose language through
 * the plugin and its generated SDK (examples/python, examples/go): each README's "Run it" run as
 * written with the Pulumi CLI, the SDK installed from a stand-in of its registry and the plugin
 * downloaded by the engine from a stand-in of the release, then the handlers on two sites
 * (an explicit provider for the second), a lookup, a handler set from the example's YAML files (built by
 * the plugin, a secret from the stack's config), drift named by field and repaired, the package's policy
 * pack failing a preview, the same program on the oldest Pulumi SDK the package accepts, no secret in
 * the state or in anything printed, and destroy. The steps the YAML example's test shares are exported.
 */
import { describe, expect, it, onTestFinished } from "vitest";

import type { PreviewJson } from "../../../cli/summary";
import { parseDriftNotes } from "../../../provider/core/drift-note";
import { HANDLER_RESOURCE_TOKEN } from "../../../provider/tokens";
import { NotificationHandlersClient } from "../../../sdk/client/client";
import type { Registries } from "../stand-ins/registries";
import { storyStep } from "../story-step";
import { expectEventLogKeepsSecrets, runWithPolicies, violationLine } from "./policy-pack";
import { listAll, type ReadmeStep, startExampleOnStandIns, type UserSession } from "./user-path";

// As the READMEs set it.
const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX";
const TEAM_WEBHOOK = "https://discord.com/api/webhooks/0000/XXXX";

/** The stack outputs every example exports. */
type SiteOutputs = Record<"oncallId" | "pagerId" | "inboxId", number>;

type Outputs = SiteOutputs & {
  /** The handler set's ids by key (`handlers/team.yaml`). */
  teamIds: Record<string, number>;
};

/** What differs between the examples: the folder, what it installs from, and what that prints. */
export interface ProgramExample {
  example: string;
  /** Text the README's install step prints when it installed what the program needs. */
  installed: string[];
  /**
   * The stand-ins of what the README installs from (the plugin's release among them), started in
   * `work` before it runs.
   */
  registries: (work: string) => Promise<Registries>;
  /** Steps of the example's own, run on the stack after its drift is repaired. */
  ownSteps?: (s: UserSession, sites: TwoSites) => Promise<void>;
  /** Moves the project onto the oldest Pulumi SDK its package accepts (oldest-sdks.ts). */
  toOldestSdk: (s: UserSession) => Promise<void>;
}

/** The two servers the READMEs start: the default site and the one the explicit provider targets. */
export interface TwoSites {
  staging: NotificationHandlersClient;
  production: NotificationHandlersClient;
}

/**
 * A client for each site the session's README started, with the keys it exported; closed when the
 * test ends.
 */
export async function sitesForTest(s: UserSession): Promise<TwoSites> {
  const staging = new NotificationHandlersClient({
    baseURL: s.urls.get("8080")!,
    apiKey: await s.variable("KEY"),
  });
  const production = new NotificationHandlersClient({
    baseURL: s.urls.get("8081")!,
    apiKey: await s.variable("PRODUCTION_KEY"),
  });
  onTestFinished(async () => {
    await staging.close();
    await production.close();
  });
  return { staging, production };
}

/** The handlers of a site, as `type name`, sorted. */
export async function summary(client: NotificationHandlersClient): Promise<string[]> {
  return (await listAll(client)).map((h) => `${h.type} ${h.name}`).sort();
}

/**
 * The README's drift step: the drifted name shown, live and desired, under the handler in a plain
 * preview, and in the summary the plugin's executable makes of `pulumi preview --json`; then put back
 * by up. With `noteUrn`, a preview more checks that the note in the JSON carries the handler's URN
 * (the plugin's, whatever the program's language: one example checks it).
 */
export async function repairDrift(
  s: UserSession,
  step: ReadmeStep,
  sites: TwoSites,
  oncallId: number,
  noteUrn = false,
): Promise<void> {
  await storyStep(
    "the drifted field shown live and desired in a plain preview and its summary, repaired by up",
    async () => {
      const [shown, repair] = step.code.split(/^(?=pulumi up --yes$)/m);
      const [previews] = await s.step({ ...step, code: shown! });
      const name = '"Renamed in the web UI"';
      expect(previews!.stdout).toContain(
        `name: live ${name}, desired "On-call email" (changed outside the code)`,
      );
      expect(previews!.stdout).toContain(
        `| update | \`oncall\` | ${oncallId} ${name} (in the code: "On-call email") | ` +
          `\`name\`: ${name} → "On-call email" (changed outside the code) |`,
      );
      if (noteUrn) {
        const json = JSON.parse((await s.mustSh("pulumi preview --json")).stdout) as PreviewJson;
        const [note] = parseDriftNotes(json.diagnostics ?? []);
        expect(note?.id).toBe(oncallId);
        expect(note?.urn).toMatch(/NotificationHandler::oncall$/);
      }

      const [up] = await s.step({ ...step, code: repair! });
      expect(up!.stdout).toMatch(/1 updated/);
      expect((await sites.staging.notificationHandlers.retrieve(oncallId)).name).toBe("On-call email");
    },
  );
}

/**
 * What an example's up left: its outputs (the lookup's are secret, so read with `--show-secrets`),
 * `onStaging` on the first site with the inbox under its output's id, the README's Slack webhook and
 * a disabled status page, and the pager alone on the second site. Returns the outputs and the first
 * site's handlers, for an example's own checks.
 */
export async function expectUpOnTwoSites<T extends SiteOutputs>(
  s: UserSession,
  { staging, production }: TwoSites,
  onStaging: string[],
): Promise<{ ids: T; handlers: Awaited<ReturnType<typeof listAll>> }> {
  const outputs = await s.mustSh("pulumi stack output --json --show-secrets", false);
  const ids = JSON.parse(outputs.stdout) as T;
  expect(await summary(staging)).toEqual(onStaging);
  expect(await summary(production)).toEqual(["twilio Production pager"]);
  const handlers = await listAll(staging);
  expect(handlers.find((h) => h.name === "Status inbox")?.id).toBe(ids.inboxId);
  expect(handlers.find((h) => h.type === "slack")?.settings).toEqual({ slack: SLACK_WEBHOOK });
  expect(handlers.find((h) => h.type === "webhook")?.is_enabled).toBe(false);
  expect((await listAll(production))[0]?.id).toBe(ids.pagerId);
  return { ids, handlers };
}

/**
 * None of `secrets` (the API keys, the webhook URLs) in the exported state, which holds each of
 * `inState` (by default the handlers' type token), or in anything the CLI printed.
 */
export async function expectSecretsKept(
  s: UserSession,
  secrets: string[],
  inState: string[] = [HANDLER_RESOURCE_TOKEN],
): Promise<void> {
  await storyStep("no key or webhook in the state or in anything printed", async () => {
    const state = await s.mustSh("pulumi stack export", false);
    for (const text of inState) expect(state.stdout).toContain(text);
    for (const secret of secrets) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }
  });
}

/** The two sites' API keys, as the README's steps set them in the user's shell. */
export async function siteKeys(s: UserSession): Promise<string[]> {
  return [await s.variable("KEY"), await s.variable("PRODUCTION_KEY")];
}

/**
 * `pulumi import` of a handler made by hand, into a stack whose provider records the SDK's download
 * URL: the engine imports it and reaches the language host's code generation with no error of its own
 * (the project's hosts generate no code; an installed Pulumi's do). The destroy deletes it.
 */
async function importReachingCodegen(s: UserSession, sites: TwoSites): Promise<void> {
  await storyStep("pulumi import: imported, the language host asked for its code", async () => {
    const { id } = await sites.staging.notificationHandlers.create({
      type: "email",
      name: "Ops mailbox",
      email: "ops@example.com",
    });
    const imported = await s.sh(
      `pulumi import notification-handlers:index:NotificationHandler ops-mailbox ${id} --yes --protect=false`,
    );
    const printed = `${imported.stdout}${imported.stderr}`;
    expect(printed).toMatch(/1 imported/);
    expect(printed).not.toContain("anonymous.pp");
    expect(printed).toContain("The server does not implement the method generateProgram");
  });
}

/**
 * The package's policy pack runs on the program's handlers: a mandatory rule the pager breaks stops
 * `pulumi up` before it changes anything, naming resource, rule and field (every rule is proved on
 * examples/yaml-program, with a preview).
 */
async function policyPackRuns(s: UserSession, secrets: string[]): Promise<void> {
  await storyStep("the policy pack stops an up on a mandatory rule, naming resource and field", async () => {
    const { code, printed, events } = await runWithPolicies(
      s,
      { "phone-country-codes": { allowedCountryCodes: ["44"] } },
      "pulumi up --yes",
    );
    expect(code, printed).not.toBe(0);
    expect(printed).toMatch(
      violationLine("mandatory", "phone-country-codes", HANDLER_RESOURCE_TOKEN, "production-pager"),
    );
    expect(printed).toContain(
      'handler "production-pager" (twilio): field twilio: the number\'s country code is not in allowedCountryCodes',
    );
    await expectEventLogKeepsSecrets(events, secrets);
  });
}

/** `pulumi destroy`, which leaves on the default site only the inbox the program looks up. */
export async function destroyLeavingInbox(s: UserSession, sites: TwoSites, title: string): Promise<void> {
  await storyStep(title, async () => {
    await s.mustSh("pulumi destroy --yes");
    expect(await summary(sites.staging)).toEqual(["internal_notification Status inbox"]);
    expect(await summary(sites.production)).toEqual([]);
  });
}

/** The suite of one example (see the file comment). */
export function describeProgramOnTwoSites({
  example,
  installed,
  registries,
  ownSteps,
  toOldestSdk,
}: ProgramExample): void {
  describe(`examples/${example}, run as its README says with the Pulumi CLI`, () => {
    // One story: each step acts on the stack the steps before it left.
    it("brings the program up on two sites, repairs drift, keeps secrets out, and destroys it", async () => {
      const { session: s, steps, standIns } = await startExampleOnStandIns(example, 4, registries);
      await s.step(steps[0]!);
      const sites = await sitesForTest(s);
      const { production } = sites;

      await storyStep("install the SDK from its registry", async () => {
        const install = (await s.step(steps[1]!)).map((r) => `${r.stdout}${r.stderr}`).join("\n");
        for (const text of installed) expect(install).toContain(text);
      });

      const ids = await storyStep(
        "up on two sites, the handler set's handlers on the default one",
        async () => {
          const [up] = await s.step(steps[2]!);
          // The stack, the second provider, four handlers, the handler set and its two.
          expect(up!.stdout).toMatch(/9 created/);
          // The plugin the SDK names, downloaded by the engine from the release.
          standIns.expectServed();
          const { ids, handlers } = await expectUpOnTwoSites<Outputs>(s, sites, [
            "discord Team Discord",
            "email On-call email",
            "email Team email",
            "internal_notification Status inbox",
            "slack Team Slack",
            "webhook Status page",
          ]);
          const named = (name: string): (typeof handlers)[number] | undefined =>
            handlers.find((h) => h.name === name);
          expect(named("On-call email")?.id).toBe(ids.oncallId);
          expect(named("On-call email")?.settings).toEqual({ email: "oncall@example.com" });
          // The set's handlers, on the default site, with the secret from the stack's config.
          expect(ids.teamIds).toEqual({
            "team-email": named("Team email")?.id,
            "team-discord": named("Team Discord")?.id,
          });
          expect(named("Team email")).toMatchObject({
            is_enabled: true,
            settings: { email: "team@example.com" },
          });
          expect(named("Team Discord")?.settings).toEqual({ discord: TEAM_WEBHOOK });
          const [pager] = await listAll(production);
          expect(pager).toMatchObject({ id: ids.pagerId, settings: { twilio: "+15551234567" } });
          return ids;
        },
      );

      await repairDrift(s, steps[3]!, sites, ids.oncallId);
      await policyPackRuns(s, [...(await siteKeys(s)), SLACK_WEBHOOK, TEAM_WEBHOOK]);
      await ownSteps?.(s, sites);
      await storyStep(
        "on the oldest Pulumi SDK the package accepts, the program previews no change",
        async () => {
          await toOldestSdk(s);
          await s.mustSh("pulumi preview --expect-no-changes");
        },
      );
      await importReachingCodegen(s, sites);
      const child = "notification-handlers:index:HandlerSet$notification-handlers:index:NotificationHandler";
      const children = ["team-email", "team-discord"].map((key) => `${child}::${key}`);
      const secrets = [...(await siteKeys(s)), SLACK_WEBHOOK, TEAM_WEBHOOK];
      await expectSecretsKept(s, secrets, [HANDLER_RESOURCE_TOKEN, ...children]);
      await destroyLeavingInbox(s, sites, "destroy, which leaves the inbox the program only looks up");
    });
  });
}
