/**
 * What the last deploy applied, kept in the resource's outputs where a refresh does not overwrite it:
 * per property, a digest of the code's value and one of the value the server stored. From it a drift
 * note tells who made a field differ, after `pulumi refresh` as before it. Digests, salted with the
 * handler's id, so no secret is in the state in the clear; secret outputs where the type has a
 * credential field (`./secret-properties`), as a digest could confirm a guess.
 */
import { createHash } from "node:crypto";

import { fieldsOf } from "../../sdk/client/domain/catalog";
import type { Difference, Origin } from "./drift-note";
import type { Desired, LiveHandler } from "./inputs";

/** The output that holds the record; `__` keeps it out of the engine's display of changes. */
export const APPLIED_KEY = "__applied";

/**
 * Property to `<digest of the code's value>:<digest of the stored value>`, or the one digest when they
 * are the same (as they mostly are: the state stays small).
 */
export type AppliedRecord = Record<string, string>;

/** The record of a write (or a takeover that wrote nothing): `desired` as sent, `live` as stored. */
export function appliedRecord(desired: Desired, live: LiveHandler): AppliedRecord {
  const code = codeValues(desired);
  const stored = storedValues(desired, live);
  const record: AppliedRecord = {};
  for (const [property, value] of Object.entries(code)) {
    const applied = digest(live.handlerId, property, value);
    const kept = digest(live.handlerId, property, stored[property]);
    record[property] = applied === kept ? applied : `${applied}:${kept}`;
  }
  return record;
}

/**
 * Each drifted field with who made it differ, read from the record in `olds` (the recorded outputs):
 * the code, when its value is not the one last applied; someone outside it, when the stored value is
 * not the one last stored; or both. A property the record lacks is a field of a type the code changed
 * to (the code's), or was never applied by the code (a handler imported or taken over: changed outside
 * it). With no record at all (a state an earlier
 * version wrote, which a refresh may have rewritten with the live values) a field the recorded outputs do not
 * explain is of unknown origin, never the code's.
 */
export function withOrigins(
  drift: readonly Difference[],
  olds: Record<string, unknown>,
  desired: Desired,
  live: LiveHandler,
  editedSinceRecorded: readonly string[],
): Difference[] {
  const record = recordIn(olds);
  const code = codeValues(desired);
  const stored = storedValues(desired, live);
  const changed = (property: string, values: Record<string, string | undefined>, side: 0 | 1): boolean => {
    const [applied, kept = applied] = record![property]!.split(":");
    return digest(live.handlerId, property, values[property]) !== (side === 0 ? applied : kept);
  };
  const originOf = (property: string): Origin => {
    if (record === undefined) return editedSinceRecorded.includes(property) ? "unknown" : "outside";
    if (record[property] === undefined)
      return record.type !== undefined && changed("type", code, 0) ? "code" : "outside";
    const inCode = changed(property, code, 0);
    const outside = changed(property, stored, 1);
    return inCode ? (outside ? "both" : "code") : "outside";
  };
  return drift.map((d) => ({ ...d, origin: originOf(d.property) }));
}

function recordIn(outputs: Record<string, unknown>): AppliedRecord | undefined {
  const record = outputs[APPLIED_KEY];
  return typeof record === "object" && record !== null ? (record as AppliedRecord) : undefined;
}

/** What the code sends of each property. */
function codeValues(desired: Desired): Record<string, string | undefined> {
  return valuesOf(desired.type, desired.name, desired.isEnabled, desired.fields);
}

/** What the server stores of the properties `desired` names. */
function storedValues(desired: Desired, live: LiveHandler): Record<string, string | undefined> {
  return { ...valuesOf(desired.type, live.name, live.isEnabled, live.settings), type: live.type ?? "" };
}

/** The API's properties of a handler of `type` as strings, each field under its property's name. */
function valuesOf(
  type: string,
  name: string,
  isEnabled: boolean,
  fields: Record<string, string>,
): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = { type, name, isEnabled: String(isEnabled) };
  for (const spec of fieldsOf(type)) values[spec.property] = fields[spec.field];
  return values;
}

function digest(id: number, property: string, value: string | undefined): string {
  return createHash("sha256")
    .update(`${id}\n${property}\n${value ?? "\u0000"}`)
    .digest("hex")
    .slice(0, 12);
}
