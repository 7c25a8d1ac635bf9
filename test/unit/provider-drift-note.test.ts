/** The drift notes: written by the provider, read back by `summary`, one format. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import type { PreviewJson } from "../../cli/summary";
import { type DriftNote, formatDriftNote, parseDriftNotes } from "../../provider/drift-note";

// Every kind of note, with names and values that need quoting.
const NOTES: DriftNote[] = [
  {
    kind: "differs",
    id: 12,
    name: 'On-call "primary" (EU) & <b>team</b>\nsecond line',
    fields: [
      { property: "name", live: '"Renamed in the web UI"', desired: '"On-call"' },
      { property: "isEnabled", live: "false", desired: "true" },
      { property: "email", live: "(missing)", desired: '"ops@example.com"' },
      { property: "slack", live: "[secret]", desired: "[secret]" },
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
    expect(parseDriftNotes(NOTES.map(formatDriftNote))).toEqual(NOTES);
  });

  it("read back from the engine's diagnostics: one line each, the first prefixed", () => {
    const lines = NOTES.flatMap((n) => `notification-handlers: ${formatDriftNote(n)}`.split("\n"));
    expect(parseDriftNotes(lines)).toEqual(NOTES);
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
      'handler 9 ("Hook") differs from the program:',
      '  webhook: live "https://leak.example/SECRET", desired "https://x.example"',
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
    expect(parseDriftNotes(preview.diagnostics!.map((d) => d.message ?? ""))).toEqual([
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
