/**
 * The provider's drift notes: what it tells the user in a preview when a handler differs from the
 * program or is gone, and the reading of those notes back out of `pulumi preview --json` by
 * `notification-handlers summary`. The one place that knows their format.
 *
 * A note is plain text, because the engine passes a dynamic provider's notes on as diagnostics, one
 * line each:
 *
 *     handler 12 ("On-call") differs from the program:
 *       name: live "Renamed in the web UI", desired "On-call"
 *       slack: live [secret], desired [secret]
 *     handler 13 ("Pager") no longer exists in the API; it will be created again
 */
import { ALL_FIELDS } from "../sdk/client/catalog";

/** One difference between the program and the live handler. */
export interface Difference {
  /** The resource property that differs (`name`, `type`, `isEnabled`, or a field's property). */
  property: string;
  /** What the server has, as shown: a JSON value, `[secret]` or `(missing)`. */
  live: string;
  /** What the program wants, shown the same way. */
  desired: string;
}

/** A handler that differs from the program, or that is gone from the API. */
export type DriftNote =
  | { kind: "differs"; id: number; name: string; fields: Difference[] }
  | { kind: "gone"; id: number; name: string };

/** How a secret field's value is shown, whatever it is. */
export const SHOWN_SECRET = "[secret]";

const SECRET_PROPERTIES = new Set(ALL_FIELDS.filter((f) => f.secret).map((f) => f.property));
const DIFFERS = "differs from the program:";
const GONE = "no longer exists in the API";

/** A value as a note shows it: a secret property's never, whatever the caller passed. */
const shown = (property: string, value: string): string =>
  SECRET_PROPERTIES.has(property) ? SHOWN_SECRET : value;

/** Differences as lines of a message, one per field, indented. */
export function describeDifferences(found: readonly Difference[]): string {
  return found
    .map((d) => `  ${d.property}: live ${shown(d.property, d.live)}, desired ${shown(d.property, d.desired)}`)
    .join("\n");
}

/** The text of a note. */
export function formatDriftNote(note: DriftNote): string {
  const handler = `handler ${note.id} (${JSON.stringify(note.name)})`;
  if (note.kind === "gone") return `${handler} ${GONE}; it will be created again`;
  return `${handler} ${DIFFERS}\n${describeDifferences(note.fields)}`;
}

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;
const HEADER = new RegExp(String.raw`handler (\d+) \((${QUOTED})\) (${DIFFERS}|${GONE})`);
const VALUE = String.raw`(${QUOTED}|\[secret\]|\(missing\)|true|false|null)`;
const FIELD = new RegExp(String.raw`^\s+([A-Za-z]+): live ${VALUE}, desired ${VALUE}\s*$`);

/**
 * The notes in diagnostics' messages, in order. Lines that are no part of a note are passed over;
 * a secret property's values read as `[secret]` whatever the text holds.
 */
export function parseDriftNotes(messages: Iterable<string>): DriftNote[] {
  const notes: DriftNote[] = [];
  let current: Extract<DriftNote, { kind: "differs" }> | undefined;
  for (const message of messages) {
    for (const line of message.split("\n")) {
      const header = HEADER.exec(line);
      if (header !== null) {
        const [, id, name, kind] = header as unknown as [string, string, string, string];
        const handler = { id: Number(id), name: JSON.parse(name) as string };
        current = kind === GONE ? undefined : { kind: "differs", ...handler, fields: [] };
        notes.push(current ?? { kind: "gone", ...handler });
        continue;
      }
      const field = FIELD.exec(line);
      if (field !== null && current !== undefined) {
        const [, property, live, desired] = field as unknown as [string, string, string, string];
        current.fields.push({ property, live: shown(property, live), desired: shown(property, desired) });
      } else if (line.trim() !== "") {
        current = undefined;
      }
    }
  }
  return notes;
}
