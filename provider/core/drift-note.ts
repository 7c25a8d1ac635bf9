/**
 * The provider's drift notes: what it tells the user in a preview when a handler differs from the
 * program or is gone, and the reading of those notes back out of `pulumi preview --json` by
 * `notification-handlers summary`. The one place that knows their format.
 *
 * A note is plain text, because the engine passes a dynamic provider's notes on as diagnostics of no
 * resource, one line each (the plugin sends each whole, with its resource's URN):
 *
 *     handler 12 ("Renamed in the web UI", in the code "On-call") differs from the program:
 *       name: live "Renamed in the web UI", desired "On-call" (changed outside the code)
 *       slack: live [secret], desired [secret] (changed outside the code)
 *     handler 13 ("Pager") no longer exists in the API; it will be created again
 */
import { ALL_FIELDS } from "../../sdk/client/domain/catalog";

/**
 * Who made a field differ: the code (since the last deploy), someone outside it, or both; unknown
 * where no record of the last deploy survives (`./applied-record`).
 */
export type Origin = "code" | "outside" | "both" | "unknown";

/** One difference between the program and the live handler. */
export interface Difference {
  /** The resource property that differs (`name`, `type`, `isEnabled`, or a field's property). */
  property: string;
  /** What the server has, as shown: a JSON value, `[secret]` or `(missing)`. */
  live: string;
  /** What the program wants, shown the same way. */
  desired: string;
  /** Left out where no deploy recorded what the code wanted before (a write's check). */
  origin?: Origin;
}

/** A handler that differs from the program, or that is gone from the API. */
export type DriftNote = (
  | { kind: "differs"; id: number; name: string; fields: Difference[] }
  | { kind: "gone"; id: number; name: string }
) & {
  /** The resource's URN, when the engine gave the note one (the plugin's notes). */
  urn?: string;
};

/** A diagnostic as `pulumi preview --json` gives it. */
export interface Diagnostic {
  message?: string;
  urn?: string;
}

/** How a secret field's value is shown, whatever it is. */
export const SHOWN_SECRET = "[secret]";

const SECRET_PROPERTIES = new Set(ALL_FIELDS.filter((f) => f.secret).map((f) => f.property));
const DIFFERS = "differs from the program:";
const GONE = "no longer exists in the API";
export const ORIGINS: Record<Origin, string> = {
  code: "changed in the code",
  outside: "changed outside the code",
  both: "changed in the code and outside it",
  unknown: "origin unknown: the state predates the record of the last deploy",
};

/** A value as a note shows it: a secret property's never, whatever the caller passed. */
const shown = (property: string, value: string): string =>
  SECRET_PROPERTIES.has(property) ? SHOWN_SECRET : value;

/** Differences as lines of a message, one per field, indented. */
export function describeDifferences(found: readonly Difference[]): string {
  return found
    .map(
      (d) =>
        `  ${d.property}: live ${shown(d.property, d.live)}, desired ${shown(d.property, d.desired)}` +
        (d.origin === undefined ? "" : ` (${ORIGINS[d.origin]})`),
    )
    .join("\n");
}

/** A note's difference in the handler's name, when it was renamed. */
export const renamedField = (note: DriftNote | undefined): Difference | undefined =>
  note?.kind === "differs" ? note.fields.find((d) => d.property === "name") : undefined;

/** The text of a note: the handler named as it is live, and as the code has it when that differs. */
export function formatDriftNote(note: DriftNote): string {
  const named = JSON.stringify(note.name);
  if (note.kind === "gone") return `handler ${note.id} (${named}) ${GONE}; it will be created again`;
  const renamed = renamedField(note);
  const inCode = renamed === undefined ? "" : `, in the code ${renamed.desired}`;
  return `handler ${note.id} (${named}${inCode}) ${DIFFERS}\n${describeDifferences(note.fields)}`;
}

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;
const HEADER = new RegExp(
  String.raw`handler (\d+) \((${QUOTED})(?:, in the code ${QUOTED})?\) (${DIFFERS}|${GONE})`,
);
const VALUE = String.raw`(${QUOTED}|\[secret\]|\(missing\)|true|false|null)`;
const ORIGIN = `(?: \\((${Object.values(ORIGINS).join("|")})\\))?`;
const FIELD = new RegExp(String.raw`^\s+([A-Za-z]+): live ${VALUE}, desired ${VALUE}${ORIGIN}\s*$`);
const ORIGIN_OF = new Map(Object.entries(ORIGINS).map(([origin, text]) => [text, origin as Origin]));

/**
 * The notes in diagnostics' messages, in order, each with its diagnostic's URN if it has one. Lines
 * that are no part of a note are passed over; a secret property's values read as `[secret]` whatever
 * the text holds.
 */
export function parseDriftNotes(diagnostics: Iterable<Diagnostic>): DriftNote[] {
  const notes: DriftNote[] = [];
  let current: Extract<DriftNote, { kind: "differs" }> | undefined;
  for (const { message = "", urn } of diagnostics) {
    for (const line of message.split("\n")) {
      const header = HEADER.exec(line);
      if (header !== null) {
        const [, id, name, kind] = header as unknown as [string, string, string, string];
        const handler = {
          id: Number(id),
          name: JSON.parse(name) as string,
          ...(urn === undefined ? {} : { urn }),
        };
        current = kind === GONE ? undefined : { kind: "differs", ...handler, fields: [] };
        notes.push(current ?? { kind: "gone", ...handler });
        continue;
      }
      const field = FIELD.exec(line);
      if (field !== null && current !== undefined) {
        const [, property, live, desired, origin] = field as unknown as [
          string,
          string,
          string,
          string,
          string?,
        ];
        current.fields.push({
          property,
          live: shown(property, live),
          desired: shown(property, desired),
          ...(origin === undefined ? {} : { origin: ORIGIN_OF.get(origin)! }),
        });
      } else if (line.trim() !== "") {
        current = undefined;
      }
    }
  }
  return notes;
}
