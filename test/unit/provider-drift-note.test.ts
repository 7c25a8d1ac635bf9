/** The drift notes: written by the provider, read back by `summary`, one format. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import type { PreviewJson } from "../../cli/summary";
import { type DriftNote, formatDriftNote, parseDriftNotes } from "../../provider/core/drift-note";

// Every kind of note, with names and values that need quoting.
const NOTES: DriftNote[] = [
  {
    kind: "differs",
    id: 12,
    name: 'On-call "primary" (EU) & <b>team</b>\nsecond line',
    fields: [
      { property: "name", live: '"Renamed in the web UI"', desired: '"On-call"', origin: "outside" },
      { property: "isEnabled", live: "false", desired: "true", origin: "code" },
      { property: "email", live: "(missing)", desired: '"ops@example.com"', origin: "both" },
      { property: "slack", live: "[secret]", desired: "[secret]", origin: "outside" },
      // As a write's check words it, with no deploy to compare with.
      { property: "discord", live: "[secret]", desired: "[secret]" },
    ],
  },
  { kind: "gone", id: 13, name: "Pager, SMS: ünïcode" },
  {
    kind: "differs",
    id: 14,
    name: "",
    fields: [{ property: "type", live: '"slack"', desired: '"discord"' }],
  },
];

describe("drift notes", () => {
  it("read back as they were written, each kind", () => {
    expect(parseDriftNotes(NOTES.map((n) => ({ message: formatDriftNote(n) })))).toEqual(NOTES);
  });

  it("carry the URN of the diagnostic the engine gave them (the plugin's)", () => {
    const urn = "urn:pulumi:dev::p::notification-handlers:index:NotificationHandler::oncall";
    const read = parseDriftNotes(NOTES.map((n) => ({ message: formatDriftNote(n), urn })));
    expect(read).toEqual(NOTES.map((n) => ({ ...n, urn })));
  });

  it("name the handler as it is live, and as the code has it when that differs", () => {
    expect(formatDriftNote(NOTES[0]!).split("\n")[0]).toMatch(
      /^handler 12 \("On-call .*\\nsecond line", in the code "On-call"\) differs from the program:$/,
    );
    expect(formatDriftNote(NOTES[2]!).split("\n")[0]).toBe('handler 14 ("") differs from the program:');
  });

  it("word who made each field differ", () => {
    const text = formatDriftNote(NOTES[0]!);
    expect(text).toContain(
      'name: live "Renamed in the web UI", desired "On-call" (changed outside the code)',
    );
    expect(text).toContain("isEnabled: live false, desired true (changed in the code)\n");
    expect(text).toContain("(changed in the code and outside it)");
    expect(text).toMatch(/discord: live \[secret\], desired \[secret\]$/);
  });

  it("read back from the engine's diagnostics: one line each, the first prefixed", () => {
    const lines = NOTES.flatMap((n) => `notification-handlers: ${formatDriftNote(n)}`.split("\n"));
    expect(parseDriftNotes(lines.map((message) => ({ message })))).toEqual(NOTES);
  });

  it("show a secret field as [secret] when written and when read, whatever the value", () => {
    const text = formatDriftNote({
      kind: "differs",
      id: 9,
      name: "Hook",
      fields: [
        { property: "webhook", live: '"https://leak.example/A"', desired: '"https://leak.example/B"' },
      ],
    });
    expect(text).not.toContain("leak.example");
    expect(text).toContain("webhook: live [secret], desired [secret]");
    const [read] = parseDriftNotes([
      { message: 'handler 9 ("Hook") differs from the program:' },
      { message: '  webhook: live "https://leak.example/SECRET", desired "https://x.example"' },
    ]);
    expect(read).toEqual({
      kind: "differs",
      id: 9,
      name: "Hook",
      fields: [{ property: "webhook", live: "[secret]", desired: "[secret]" }],
    });
  });

  it("read a real preview's notes, passing over every other diagnostic", () => {
    // `pulumi preview --json` of examples/quickstart after its README's drift steps and a changed
    // Slack URL, taken with the CLI.
    const preview = JSON.parse(
      readFileSync(join(__dirname, "fixtures", "preview-drift.json"), "utf8"),
    ) as PreviewJson;
    expect(parseDriftNotes(preview.diagnostics!)).toEqual([
      {
        kind: "differs",
        id: 4,
        name: "Team Slack",
        fields: [{ property: "slack", live: "[secret]", desired: "[secret]" }],
      },
      { kind: "gone", id: 2, name: "Pager SMS" },
      {
        kind: "differs",
        id: 1,
        name: "On-call email",
        fields: [{ property: "name", live: '"Renamed in the web UI"', desired: '"On-call email"' }],
      },
    ]);
  });
});
