/**
 * examples/gitops on the user's path: its README's "Run it" steps, then the three workflow files'
 * jobs as written (see workflow-runner.ts) against the reference server: a pull request's change is
 * summarized and posted with `gh`, changes made in the web UI fail the drift check with a summary
 * that names each handler and field, secrets as [secret], and the merged change is deployed, the drift
 * repaired with it. The preview runs the package's policy pack with the example's policy-config.json: a
 * pull request that breaks a mandatory rule fails its check, the comment naming rule, resource and
 * field. By hand, a team's own pack, written with the helpers, runs beside it, advisory rules warn
 * (a handler's connection, types, a pager kept, unique names) and a value unknown at preview is
 * checked at up. (A clean check's summary is the summary's unit test; its exit code is
 * `pulumi preview --expect-no-changes`'s own.)
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";

import { DYNAMIC_RESOURCE_TYPE } from "../../provider/tokens";
import { REPOSITORY_ROOT, userEnvironment } from "../../scripts/support/user-project";
import { SHIPPED_PACK, expectEventLogKeepsSecrets, violationLine } from "../support/engine/policy-pack";
import { listAll, startExample } from "../support/engine/user-path";
import { type JobRun, readWorkflow, runJob } from "../support/engine/workflow-runner";

const WORKFLOWS = join(REPOSITORY_ROOT, "examples", "gitops", ".github", "workflows");
const README_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX";
const UI_WEBHOOK = "https://hooks.slack.com/services/T000/B000/CHANGED-IN-THE-UI";
const VENDOR_HOOK = "https://collector.vendor.example/hook/VENDOR-TOKEN";

// A pull request's handlers that break the team's policy-config.json: a webhook to a host it does not
// list (mandatory) and a pager in a country it does not list (advisory).
const POLICY_BREAKING_HANDLERS = `
vendor-hook:
  type: webhook
  name: Vendor hook
  webhook: { secret: vendorHook }
paris-pager:
  type: twilio
  name: Paris pager
  twilio: "+33612345678"
`;

// A team's own pack beside the package's, written with its helpers.
const OWN_PACK = {
  "PulumiPolicy.yaml": "runtime: nodejs\n",
  "package.json": JSON.stringify({ name: "our-rules", version: "1.0.0", main: "index.js" }),
  "config.json": "{}",
  "index.js": `const { PolicyPack } = require("@pulumi/policy");
const { SecretValue, handlerPolicy } = require("pulumi-notification-handlers/policy");
new PolicyPack("our-rules", {
  policies: [
    handlerPolicy({
      name: "slack-of-our-workspace",
      description: "A Slack handler posts to our workspace.",
      enforcementLevel: "advisory",
      validateHandler: (handler, _args, report) => {
        const url = handler.type === "slack" ? handler.fields.slack : undefined;
        if (url instanceof SecretValue && !url.reveal().includes("/T0OURTEAM/"))
          report(\`handler "\${handler.resourceName}": field slack (\${url}) is not our workspace's\`);
      },
    }),
  ],
});
`,
};

// Appended to the program: a handler on a site named by its connection, with the name of the
// teams' inbox; and an email address made from its id, unknown at preview, known (and outside the
// allowed domains) at up.
const PROGRAM_ADDITIONS = `
const relay = new NotificationHandler("relay-inbox", {
  type: "internal_notification",
  name: "Status page inbox",
  connection: {
    baseUrl: new pulumi.Config("notification-handlers").require("baseUrl"),
    apiKey: pulumi.secret(process.env.NOTIFICATION_HANDLERS_API_KEY ?? ""),
  },
});
new NotificationHandler("computed-email", {
  type: "email",
  name: "Computed email",
  email: relay.handlerId.apply((id) => \`relay-\${id}@elsewhere.example.net\`),
});
`;

// The ready pack's rules the by-hand run configures: advisory ones, which the preview shows and
// goes on, and email-domains, mandatory, which the up's computed address breaks.
const BY_HAND_CONFIG = {
  "email-domains": { allowedDomains: ["example.com"] },
  "handler-types": { enforcementLevel: "advisory", allowedTypes: ["email", "slack"] },
  "keeps-enabled-handler": { enforcementLevel: "advisory", requiredTypes: ["twilio"] },
  "api-sites": { enforcementLevel: "advisory", allowedSites: ["https://alerts.example.com"] },
  "unique-names": "advisory",
};

// Stands in for GitHub's `gh` CLI: records its arguments and the comment body it was given.
const FAKE_GH = `#!/usr/bin/env bash
[ -n "$GH_TOKEN" ] || { echo "gh: GH_TOKEN is not set" >&2; exit 4; }
printf '%s\\n' "$@" > "$GH_RECORD/args"
previous=""
for argument in "$@"; do
  if [ "$previous" = "--body-file" ]; then cp "$argument" "$GH_RECORD/body.md"; fi
  previous="$argument"
done
`;

/** Everything a job printed, for checks that no secret shows. */
const printed = (run: JobRun): string =>
  run.steps.map((s) => `${s.result?.stdout ?? ""}\n${s.result?.stderr ?? ""}`).join("\n") + run.summary;

describe("examples/gitops, its README and its workflows run with the Pulumi CLI", () => {
  it("reviews a change, and fails the drift check after edits in the web UI", async () => {
    const { session, steps } = await startExample("gitops", 4);

    // The README, by hand.
    await session.step(steps[0]!);
    const { key, client } = await session.account();
    await session.step(steps[1]!);
    const handlers = await listAll(client);
    const NAMES = ["On-call email", "Status inbox", "Team Slack"];
    expect(handlers.map((h) => h.name).sort()).toEqual(NAMES);
    const [oncall, inbox, slack] = NAMES.map((name) => handlers.find((h) => h.name === name));

    const [review] = await session.step(steps[2]!);
    expect(review!.stdout).toContain(
      `| update | \`team-slack\` | ${slack!.id} "Team Slack" (in the code: "Team Slack (alerts)") | \`name\`: "Team Slack" → "Team Slack (alerts)" (changed in the code) |`,
    );
    const [drift] = await session.step(steps[3]!);
    expect(drift!.stdout).toContain("drift found");
    expect(drift!.stdout).toContain(
      `| update | \`oncall-email\` | ${oncall!.id} "Renamed in the web UI" (in the code: "On-call email") | \`name\`: "Renamed in the web UI" → "On-call email" (changed outside the code) |`,
    );
    expect((await listAll(client)).map((h) => h.name).sort()).toEqual(NAMES);

    // The workflows, as GitHub runs them.
    const runner = join(session.root, "runner");
    const record = join(runner, "gh-record");
    await mkdir(join(runner, "bin"), { recursive: true });
    await mkdir(record);
    await writeFile(join(runner, "bin", "gh"), FAKE_GH);
    await chmod(join(runner, "bin", "gh"), 0o755);
    const job = {
      cwd: session.project,
      env: {
        ...userEnvironment({
          home: join(runner, "home"),
          pathFirst: [join(runner, "bin"), ...inject("enginePath")],
        }),
        GH_RECORD: record,
        // The registry the runner's `npm ci` takes the release's packages from.
        npm_config_registry: inject("npmRegistry").url,
      },
      context: {
        "vars.PULUMI_BACKEND_URL": `file://${join(session.root, "state")}`,
        "secrets.PULUMI_CONFIG_PASSPHRASE": "local-only",
        "secrets.NOTIFICATION_HANDLERS_API_KEY": key,
        "github.token": "ghs_placeholder",
        "github.event.pull_request.number": "42",
      },
      // The jobs share this checkout: the first `npm ci` installs, and the later ones, the same
      // command on the same lockfile, find its tree (workflow-runner.ts).
      installed: new Map<string, { job: string; files: string }>(),
    };
    const driftWorkflow = await readWorkflow(join(WORKFLOWS, "notification-handlers-drift.yml"));
    const previewWorkflow = await readWorkflow(join(WORKFLOWS, "notification-handlers-preview.yml"));
    const deployWorkflow = await readWorkflow(join(WORKFLOWS, "notification-handlers-deploy.yml"));

    // A service team's pull request edits its YAML file.
    const file = join(session.project, "handlers", "teams.yaml");
    const original = await readFile(file, "utf8");
    await writeFile(file, original.replace("name: Status inbox", "name: Status page inbox"));
    const pullRequest = await runJob(previewWorkflow, "preview", job);
    await writeFile(file, original);
    expect(pullRequest.success, printed(pullRequest)).toBe(true);
    expect(pullRequest.steps.find((s) => s.name === "Install")?.result?.code).toBe(0);
    const validate = pullRequest.steps.find((s) => s.name === "Check the handler files")!;
    expect(validate.result!.stdout).toContain("1 handler in 1 file: no problems");
    const row = `| update | \`status-inbox\` | ${inbox!.id} "Status inbox" (in the code: "Status page inbox") | \`name\`: "Status inbox" → "Status page inbox" (changed in the code) |`;
    expect(pullRequest.summary).toContain(row);
    expect((await readFile(join(record, "args"), "utf8")).split("\n")).toEqual([
      "pr",
      "comment",
      "42",
      "--body-file",
      "summary.md",
      "--edit-last",
      "--create-if-none",
      "",
    ]);
    expect(await readFile(join(record, "body.md"), "utf8")).toBe(pullRequest.summary);

    // A pull request adds handlers that break the team's policies: the check fails, the comment
    // names each violation's rule, resource and field, never the webhook.
    await session.mustSh(`printf '%s' ${VENDOR_HOOK} | pulumi config set --secret vendorHook`, false);
    await writeFile(file, original + POLICY_BREAKING_HANDLERS);
    const breaking = await runJob(previewWorkflow, "preview", job);
    await writeFile(file, original);
    expect(breaking.success).toBe(false);
    expect(breaking.steps.find((s) => s.name === "Preview")?.result?.code).not.toBe(0);
    expect(breaking.summary).toContain("**Policy violations**: 1 mandatory, 1 advisory.");
    expect(breaking.summary).toContain(
      '| mandatory | notification-handlers/destination-hosts | `vendor-hook` | handler "vendor-hook" (webhook): field webhook (a secret, not shown) points at a host not in allowedHosts |',
    );
    expect(breaking.summary).toContain(
      '| advisory | notification-handlers/phone-country-codes | `paris-pager` | handler "paris-pager" (twilio): field twilio: the number\'s country code is not in allowedCountryCodes |',
    );
    expect(await readFile(join(record, "body.md"), "utf8")).toBe(breaking.summary);
    expect((await listAll(client)).map((h) => h.name).sort()).toEqual(NAMES);

    // Someone changes the Slack webhook and deletes the inbox in the web UI.
    await client.notificationHandlers.update(slack!.id, { type: "slack", slack: UI_WEBHOOK });
    await client.notificationHandlers.delete(inbox!.id);
    const drifted = await runJob(driftWorkflow, "drift", job);
    expect(drifted.success).toBe(false);
    expect(drifted.steps.find((s) => s.name === "Install")?.installedBy).toBe("preview");
    const check = drifted.steps.find((s) => s.name === "Check for drift")!;
    expect(check.result!.code).not.toBe(0);
    expect(check.result!.stdout).toContain("::error::The notification handlers of prod differ from the code");
    expect(drifted.summary).toContain("1 to update, 1 to replace.");
    expect(drifted.summary).toContain(
      `| update | \`team-slack\` | ${slack!.id} "Team Slack" | \`slack\`: [secret] → [secret] (changed outside the code) |`,
    );
    expect(drifted.summary).toContain(
      `| replace | \`status-inbox\` | ${inbox!.id} "Status inbox" | **deleted outside the code**; made again |`,
    );

    // The pull request is merged: the deploy applies it and repairs the drift, nothing to recover.
    await writeFile(file, original.replace("name: Status inbox", "name: Status page inbox"));
    const deployed = await runJob(deployWorkflow, "deploy", job);
    expect(deployed.success, printed(deployed)).toBe(true);
    expect(deployed.steps.find((s) => s.name === "Install")?.installedBy).toBe("preview");
    const recovered = deployed.steps.find((s) => s.name === "Record what a cut-off deploy made")!;
    expect(recovered.result!.stdout).toBe("no pending operations: nothing to recover\n");
    const after = await listAll(client);
    expect(after.map((h) => h.name).sort()).toEqual(["On-call email", "Status page inbox", "Team Slack"]);
    expect(after.find((h) => h.name === "Team Slack")?.settings).toEqual({ slack: README_WEBHOOK });

    // The team's own pack beside the package's, by hand: an advisory violation of its own warns and
    // the preview goes on; a value unknown at preview is checked at up, which it stops.
    await mkdir(join(session.project, "our-rules"));
    for (const [name, text] of Object.entries(OWN_PACK))
      await writeFile(join(session.project, "our-rules", name), text);
    await writeFile(
      join(session.project, "index.ts"),
      (await readFile(join(session.project, "index.ts"), "utf8")) + PROGRAM_ADDITIONS,
    );
    await writeFile(join(session.project, "by-hand.json"), JSON.stringify(BY_HAND_CONFIG));
    const packs = `--policy-pack ${SHIPPED_PACK} --policy-pack-config by-hand.json --policy-pack our-rules --policy-pack-config our-rules/config.json`;
    const events = join(session.root, "events.json");
    const preview = await session.sh(
      `PULUMI_DEBUG_COMMANDS=true pulumi preview --stack prod --event-log ${events} ${packs}`,
    );
    const shown = `${preview.stdout}\n${preview.stderr}`;
    expect(preview.code, shown).toBe(0);
    expect(shown).toMatch(
      violationLine("advisory", "slack-of-our-workspace", DYNAMIC_RESOURCE_TYPE, "team-slack"),
    );
    expect(shown).toContain('handler "team-slack": field slack ([secret]) is not our workspace\'s');
    expect(shown).not.toContain("email-domains");
    const advisory = (rule: string, name: string): RegExp =>
      violationLine("advisory", rule, DYNAMIC_RESOURCE_TYPE, name);
    expect(shown).toMatch(advisory("handler-types", "status-inbox"));
    expect(shown).toMatch(advisory("api-sites", "relay-inbox"));
    expect(shown).toMatch(advisory("unique-names", "relay-inbox"));
    for (const message of [
      'handler "status-inbox" (internal_notification): field type: "internal_notification" is not in allowedTypes',
      'handler "relay-inbox" (internal_notification): connection.baseUrl is not one of allowedSites',
      'handler "relay-inbox" (internal_notification): field name "Status page inbox" is also the name of "status-inbox"',
      "the stack has no enabled handler of type twilio",
    ])
      expect(shown).toContain(message);
    const up = await session.sh(`pulumi up --stack prod --yes ${packs}`);
    const upShown = `${up.stdout}\n${up.stderr}`;
    expect(up.code).not.toBe(0);
    expect(upShown).toMatch(
      violationLine("mandatory", "email-domains", DYNAMIC_RESOURCE_TYPE, "computed-email"),
    );
    expect(upShown).toContain(
      'handler "computed-email" (email): field email: domain "elsewhere.example.net" is not in allowedDomains',
    );
    expect((await listAll(client)).map((h) => h.name)).not.toContain("Computed email");
    const secrets = [key, README_WEBHOOK, UI_WEBHOOK, VENDOR_HOOK];
    await expectEventLogKeepsSecrets(events, secrets);

    for (const run of [pullRequest, breaking, drifted, deployed]) {
      for (const secret of secrets) {
        expect(printed(run).includes(secret), "a secret in a job's output").toBe(false);
      }
    }
    for (const secret of secrets) {
      expect(session.transcript.join("\n").includes(secret), "a secret in the README's output").toBe(false);
    }
  });
});
