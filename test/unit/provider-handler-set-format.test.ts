/**
 * The handler-set file format: what a file gives, and every problem as `FILE:LINE:COLUMN: key.field:
 * rule`, without a secret's value.
 */
import { describe, expect, it } from "vitest";

import { formatProblem, readSetData, readSetFiles } from "../../provider/handler-sets/format";

const problemsOf = (...sources: [string, string][]): string[] =>
  readSetFiles(sources.map(([file, text]) => ({ file, text }))).problems.map(formatProblem);

describe("reading a handler set", () => {
  it("reads entries in the resource's vocabulary, secrets as config references", () => {
    const { entries, problems } = readSetFiles([
      {
        file: "handlers/ops.yaml",
        text: [
          "# yaml-language-server: $schema=../node_modules/pulumi-notification-handlers/docs/handler-set.schema.json",
          "ops-email:",
          "  type: email",
          "  name: Ops on-call",
          "  email: ops@example.com",
          "pager:",
          "  type: twilio",
          "  twilio: +15551234567",
          "  isEnabled: false",
          "  adopt: 42",
          "",
        ].join("\n"),
      },
      {
        file: "handlers/chat.yaml",
        text: [
          "team-chat:",
          "  type: telegram",
          "  telegram: { secret: telegramToken }",
          "  telegramChatId: -1001234",
          "  was: old-chat",
          "",
        ].join("\n"),
      },
    ]);
    expect(problems).toEqual([]);
    expect(entries).toMatchObject([
      { key: "ops-email", type: "email", name: "Ops on-call", fields: { email: "ops@example.com" } },
      // Plain scalars keep their spelling: the + of a phone number, the - of a chat id.
      { key: "pager", type: "twilio", isEnabled: false, adopt: 42, fields: { twilio: "+15551234567" } },
      {
        key: "team-chat",
        at: { file: "handlers/chat.yaml", line: 1, column: 1 },
        was: "old-chat",
        fields: { telegram: { secret: "telegramToken" }, telegramChatId: "-1001234" },
      },
    ]);
    expect(entries[0]!.name).toBe("Ops on-call");
    expect(entries[2]!.fieldsAt.telegram).toEqual({ file: "handlers/chat.yaml", line: 3, column: 13 });
  });

  it("takes an empty file as no handlers", () => {
    expect(readSetFiles([{ file: "empty.yaml", text: "# nothing yet\n" }])).toEqual({
      entries: [],
      problems: [],
    });
  });

  it("names the file, line, column, key, field and rule of every problem", () => {
    const secret = "https://hooks.slack.com/services/T000/B000/PLAIN";
    const problems = problemsOf(
      [
        "a.yaml",
        [
          "email-one:",
          "  type: email",
          "  email: not-an-address",
          "  slack: { secret: x }",
          "  colour: red",
          "slack-plain:",
          "  type: slack",
          `  slack: ${secret}`,
          "teams:",
          "  type: microsoft_teams",
          "  microsoft_teams: https://example.com",
          "  connection: x",
          "odd:",
          "  type: pager",
          "  name: 12",
          "bad key!:",
          "  type: email",
          "",
        ].join("\n"),
      ],
      [
        "b.yaml",
        [
          "email-one:",
          "  type: email",
          "  email: a@example.com",
          "renamed:",
          "  type: internal_notification",
          "  was: slack-plain",
          "  isEnabled: yes",
          "  adopt: -3",
          "",
        ].join("\n"),
      ],
    );
    expect(problems).toEqual([
      "a.yaml:3:10: email-one.email: must be an email address",
      "a.yaml:4:10: email-one.slack: belongs to type slack, not email",
      "a.yaml:5:11: email-one.colour: is not a field of a handler: one of type, name, isEnabled, adopt, was, email",
      expect.stringMatching(
        /^a\.yaml:8:10: slack-plain\.slack: is a secret and must not be written in the file/,
      ),
      "a.yaml:11:20: teams.microsoft_teams: is the API's name: write microsoftTeams",
      "a.yaml:12:15: teams.connection: applies to the whole set: pass it to HandlerSet",
      "a.yaml:9:1: teams.microsoftTeams: is required for type microsoft_teams",
      expect.stringMatching(/^a\.yaml:14:9: odd\.type: must be one of email, webhook, /),
      "a.yaml:16:1: bad key!: a resource key must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit",
      "b.yaml:1:1: email-one: is defined twice (also at a.yaml:1:1)",
      "b.yaml:7:14: renamed.isEnabled: must be true or false",
      "b.yaml:8:10: renamed.adopt: must be true, false or the positive integer id of the handler to take over",
    ]);
    expect(problems.join("\n")).not.toContain(secret);
  });

  it("refuses a was that names a key still present, or one named twice", () => {
    const problems = problemsOf([
      "a.yaml",
      [
        "kept:",
        "  type: internal_notification",
        "first:",
        "  type: internal_notification",
        "  was: kept",
        "second:",
        "  type: internal_notification",
        "  was: gone",
        "third:",
        "  type: internal_notification",
        "  was: gone",
        "",
      ].join("\n"),
    ]);
    expect(problems).toEqual([
      'a.yaml:5:8: first.was: names "kept", a key still in the set: remove one of them',
      'a.yaml:11:8: third.was: names "gone", which "second" names too',
    ]);
  });

  it("reports syntax errors and duplicate keys of one file with their position", () => {
    const entry = "  type: internal_notification\n";
    expect(problemsOf(["a.yaml", `a:\n${entry}a:\n${entry}`])).toEqual([
      "a.yaml:3:1: a: is defined twice (also at a.yaml:1:1)",
    ]);
    expect(problemsOf(["a.yaml", "a:\n  type: internal_notification\n  name: x\n  name: y\n"])).toEqual([
      "a.yaml:4:3: a.name: is written twice",
    ]);
    expect(problemsOf(["a.yaml", "a: [1\n"])[0]).toMatch(/^a\.yaml:\d+:\d+: /);
    expect(problemsOf(["a.yaml", "a:\n  type: email\n---\nb:\n  type: email\n"])).toEqual([
      "a.yaml:3:1: must hold one YAML document (no --- between handlers)",
    ]);
    expect(problemsOf(["a.yaml", "- a\n- b\n"])).toEqual([
      "a.yaml:1:1: must be a mapping of resource keys to handlers",
    ]);
    expect(problemsOf(["a.yaml", "a: email\n"])).toEqual([
      "a.yaml:1:4: a: must be a mapping: type, name and the type's fields",
    ]);
  });

  it("refuses aliases and merge keys, and keeps a key as it is spelled", () => {
    const aliased = "a: &x\n  type: internal_notification\nb: *x\n";
    expect(problemsOf(["a.yaml", aliased])).toEqual([
      "a.yaml:3:4: anchors and aliases (&name, *name) are not supported: write each handler out in full",
    ]);
    expect(problemsOf(["a.yaml", "a:\n  <<: { type: email }\n  type: internal_notification\n"])).toEqual([
      "a.yaml:2:7: a.<<: merge keys are not supported: write each handler out in full",
    ]);
    const { entries } = readSetFiles([{ file: "a.yaml", text: "0x10:\n  type: internal_notification\n" }]);
    expect(entries.map((e) => e.key)).toEqual(["0x10"]);
    expect(problemsOf(["a.yaml", "null:\n  type: internal_notification\n"])).toEqual([
      "a.yaml:1:1: null: a resource key must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit",
    ]);
  });

  it("counts columns from the text, not from a byte-order mark", () => {
    expect(problemsOf(["a.yaml", "\uFEFFa: email\n"])).toEqual([
      "a.yaml:1:4: a: must be a mapping: type, name and the type's fields",
    ]);
  });

  it("checks a set given as data with the same rules, naming the label", () => {
    const reading = readSetData(
      { ops: { type: "email", email: "ops@example.com" }, hook: { type: "webhook", webhook: "x" } },
      "handlers",
    );
    expect(reading.problems.map(formatProblem)).toEqual([
      expect.stringMatching(/^handlers: hook\.webhook: is a secret and must not be written/),
    ]);
    expect(readSetData({ ops: { type: "email", email: "ops@example.com" } }, "handlers").entries).toEqual([
      expect.objectContaining({ key: "ops", fields: { email: "ops@example.com" } }),
    ]);
    // One object used twice is two values, not an alias.
    const hook = { secret: "hook" };
    const shared = readSetData({ a: { type: "slack", slack: hook }, b: { type: "slack", slack: hook } }, "h");
    expect(shared.problems).toEqual([]);
    expect(shared.entries.map((e) => e.fields.slack)).toEqual([hook, hook]);
  });
});
