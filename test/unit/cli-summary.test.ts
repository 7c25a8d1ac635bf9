/** The summary of a preview: resources, handlers and fields, secrets as [secret]. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { policyViolations } from "../../cli/policy-events";
import { renderSummary, type PreviewJson } from "../../cli/summary";

// A `pulumi preview --json` of examples/quickstart after the README's drift steps plus a changed Slack
// URL, taken with the CLI (the serialized provider left out), from a provider whose notes did not yet
// say who made a field differ.
const DRIFT = JSON.parse(
  readFileSync(join(__dirname, "fixtures", "preview-drift.json"), "utf8"),
) as PreviewJson;

// A `pulumi preview --json` of a Pulumi YAML stack through the plugin, taken with the CLI (what the
// summary does not read left out): in the web UI, the on-call handler renamed, the Slack webhook
// rotated and the pager deleted; in the code, the on-call address changed, Slack disabled, a disabled
// Discord handler added and an existing mailbox taken over.
const PLUGIN = JSON.parse(
  readFileSync(join(__dirname, "fixtures", "preview-drift-plugin.json"), "utf8"),
) as PreviewJson;

describe("renderSummary", () => {
  it("tells each field's change in the code from one made outside it, secrets and booleans included", () => {
    expect(renderSummary(PLUGIN, "Pull request").split("\n")).toEqual([
      "### Pull request",
      "",
      "1 to take over, 1 to create, 2 to update, 1 to replace.",
      "",
      "| change | resource | handler | fields (live → code) |",
      "| --- | --- | --- | --- |",
      '| update | `oncall-email` | 4 "Renamed in the web UI" (in the code: "On-call email") | `name`: "Renamed in the web UI" → "On-call email" (changed outside the code)<br>`email`: "oncall@example.com" → "oncall-rota@example.com" (changed in the code) |',
      '| replace | `pager-sms` | 5 "Pager SMS" | **deleted outside the code**; made again |',
      '| take over | `status-mailbox` | existing: "Status mailbox" | takes over the handler of the same name, as it is: nothing is written; deleted by a destroy |',
      '| create | `team-discord` | new: "Team Discord" | new discord handler, disabled; deleted by a destroy |',
      '| update | `team-slack` | 3 "Team Slack" | `isEnabled`: true → false (changed in the code)<br>`slack`: [secret] → [secret] (changed outside the code) |',
      "",
    ]);
  });

  it("reads notes that carry no URN by the handler's id and name, and no origin as none", () => {
    const text = renderSummary(DRIFT, "Drift check");
    expect(text.split("\n")).toEqual([
      "### Drift check",
      "",
      "2 to update, 1 to replace.",
      "",
      "| change | resource | handler | fields (live → code) |",
      "| --- | --- | --- | --- |",
      '| update | `oncall-email` | 1 "Renamed in the web UI" (in the code: "On-call email") | `name`: "Renamed in the web UI" → "On-call email" |',
      '| replace | `pager-sms` | 2 "Pager SMS" | **deleted outside the code**; made again |',
      '| update | `team-slack` | 4 "Team Slack" | `slack`: [secret] → [secret] |',
      "",
    ]);
  });

  it("tells apart two sites' notes on the same id by the code's name when the live one was renamed", () => {
    const step = (name: string, site: string) => ({
      op: "update",
      urn: `urn:pulumi:dev::p::pulumi-nodejs:dynamic/notification-handlers:NotificationHandler::${site}`,
      oldState: { id: "1", outputs: { handlerId: 1, name } },
      newState: { inputs: { name, type: "email" } },
    });
    const preview: PreviewJson = {
      steps: [step("Pager", "production"), step("On-call", "staging")],
      diagnostics: [
        { message: 'handler 1 ("Pager") differs from the program:\n' },
        { message: "  isEnabled: live false, desired true (changed outside the code)\n" },
        { message: 'handler 1 ("Renamed on staging") differs from the program:\n' },
        { message: '  name: live "Renamed on staging", desired "On-call" (changed outside the code)\n' },
      ],
    };
    const text = renderSummary(preview);
    expect(text).toContain('| update | `staging` | 1 "Renamed on staging" (in the code: "On-call") | `name`');
    expect(text).toContain('| update | `production` | 1 "Pager" | `isEnabled`');
  });

  it("says so when nothing changes", () => {
    const same = { steps: DRIFT.steps!.map((s) => ({ ...s, op: "same" })), diagnostics: [] };
    expect(renderSummary(same)).toBe(
      "### Notification handlers\n\nNo changes: every handler is as the code declares it.\n",
    );
  });

  it("marks a change made in the code, and escapes Markdown in names", () => {
    const step = DRIFT.steps!.find((s) => s.urn.endsWith("::oncall-email"))!;
    const preview: PreviewJson = {
      steps: [{ ...step, newState: { inputs: { ...step.newState!.inputs, name: "On-call | <b>team</b>" } } }],
      diagnostics: [
        {
          message: 'notification-handlers: handler 1 ("On-call | <b>team</b>") differs from the program:\n\n',
        },
        {
          message: '  name: live "On-call email", desired "On-call | <b>team</b>" (changed in the code)\n\n',
        },
      ],
    };
    expect(renderSummary(preview)).toContain(
      '| update | `oncall-email` | 1 "On-call email" (in the code: "On-call \\| &lt;b&gt;team&lt;/b&gt;") | `name`: "On-call email" → "On-call \\| &lt;b&gt;team&lt;/b&gt;" (changed in the code) |',
    );
  });

  it("lists new handlers and deletions, and the preview's errors", () => {
    const preview: PreviewJson = {
      steps: [
        {
          op: "create",
          urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/notification-handlers:NotificationHandler::ops",
          newState: { inputs: { name: "Ops", type: "slack", adopt: 12 }, retainOnDelete: true },
        },
        {
          op: "delete",
          urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/notification-handlers:NotificationHandler::old",
          oldState: { id: "3", outputs: { handlerId: 3, name: "Old" } },
        },
        {
          // A handler of a HandlerSet: its type is qualified by its parent's.
          op: "create",
          urn:
            "urn:pulumi:dev::p::pulumi-notification-handlers:index:HandlerSet$" +
            "pulumi-nodejs:dynamic/notification-handlers:NotificationHandler::from-yaml",
          newState: { inputs: { name: "From YAML", type: "email" } },
        },
        {
          op: "create",
          urn: "urn:pulumi:dev::p::pulumi-notification-handlers:index:HandlerSet::alerts",
          newState: { inputs: {} },
        },
      ],
      diagnostics: [
        // The dynamic provider's takeover note, one diagnostic a line, as the engine passes them on.
        { message: 'handler 12 ("Ops (UI)") differs from the program:\n' },
        { message: '  name: live "Ops (UI)", desired "Ops" (changed outside the code)\n' },
        { message: "  slack: live [secret], desired [secret] (changed outside the code)\n" },
        { message: "type must be one of email, ...\n", severity: "error" },
      ],
    };
    const text = renderSummary(preview);
    expect(text).toContain("1 to take over, 1 to create, 1 to delete.");
    expect(text).toContain(
      '| take over | `ops` | 12 "Ops (UI)" (in the code: "Ops") | takes over handler 12, writing the fields below; ' +
        "kept by a destroy (`retainOnDelete`)<br>" +
        '`name`: "Ops (UI)" → "Ops" (changed outside the code)<br>`slack`: [secret] → [secret] (changed outside the code) |',
    );
    expect(text).toContain(
      '| create | `from-yaml` | new: "From YAML" | new email handler, enabled; deleted by a destroy |',
    );
    expect(text).not.toContain("`alerts`");
    expect(text).toContain('| delete | `old` | 3 "Old" | the handler is deleted |');
    expect(text).toContain("**The preview failed:**\n\n- type must be one of email, ...");
  });
});

describe("the policy violations of an event log", () => {
  const event = (policyEvent: object): string => JSON.stringify({ sequence: 1, policyEvent });
  const SECRET = "https://hooks.slack.com/services/T0/B0/SECRET";
  const log = [
    event({
      resourceUrn: "urn:pulumi:prod::p::notification-handlers:index:NotificationHandler::team-slack",
      message: "A handler's destination URL points at one of the allowed hosts.\nfield slack | not shown\n",
      policyName: "destination-hosts",
      policyPackName: "notification-handlers",
      enforcementLevel: "advisory",
    }),
    // The SDK's debug messages may hold a secret: never read.
    JSON.stringify({ diagnosticEvent: { prefix: "debug: ", message: `resp: ${SECRET}` } }),
    event({
      resourceUrn: "",
      message: "No stack without a pager.\nno enabled handler of type twilio\n",
      policyName: "keeps-enabled-handler",
      policyPackName: "notification-handlers",
      enforcementLevel: "mandatory",
    }),
    "",
  ].join("\n");

  it("shows mandatory ones first, each with its rule, resource and own message, and nothing else", () => {
    const summary = renderSummary({ steps: [] }, "Policies", policyViolations(log, "events.json"));
    expect(summary).toContain("**Policy violations**: 1 mandatory, 1 advisory.");
    expect(summary).toContain(
      "| mandatory | notification-handlers/keeps-enabled-handler | the stack | no enabled handler of type twilio |\n" +
        "| advisory | notification-handlers/destination-hosts | `team-slack` | field slack \\| not shown |",
    );
    expect(summary).not.toContain(SECRET);
  });

  it("refuses a line that is no event, naming it", () => {
    expect(() => policyViolations(`${log}\nnot json`, "events.json")).toThrow(
      "events.json:5 is not an event of `pulumi preview --event-log`",
    );
  });
});
