/**
 * Reading the API's answers tolerantly: one notification handler (the `NotificationHandler` schema
 * and its type, normalized across the reference server and every deployed variant:
 * docs/api.md#client-reading), and a list answer's meta and links.
 */

import { z } from "zod";
import { fieldsOf } from "../catalog";
import { isRecord, parseJSONKeepingBigIntegers } from "../../core/json";
import type { PageLinks, PageMeta } from "../../core/pagination";

/** An id from a number or a numeric string (an update's answer may: docs/api.md#deployed-extra-fields). */
export function toId(value: unknown): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  }
  return null;
}

function toInt(value: unknown): number | null {
  if (typeof value === "number") return Number.isInteger(value) ? value : null;
  if (typeof value === "string" && /^\s*-?\d+\s*$/.test(value)) return Number(value);
  return null;
}

/** A value as the string the API stores: numbers and booleans as their text, null as `""`, others as JSON. */
export function settingString(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean")
    return String(value);
  if (value === null || value === undefined) return "";
  return JSON.stringify(value);
}

/**
 * `settings` as a map of strings: accepts an object, a JSON-encoded string (2025 answers,
 * docs/api.md#deployed-settings-string) or PHP's `[]` for an empty map; numbers become their digits
 * (deployed instances store `whatsapp` as an integer). Keys are kept as returned, extra ones included
 * (`email_is_confirmed`, `activation_code`, the `""` key of a damaged handler); use `typeSettings()`
 * for just the catalog fields.
 */
function toSettings(value: unknown): Record<string, string> {
  let parsed = value;
  if (typeof parsed === "string") {
    try {
      parsed = parseJSONKeepingBigIntegers(parsed);
    } catch {
      return {};
    }
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  // A plain loop: this runs for every handler of a list page, and entries/fromEntries build two
  // arrays per key. Object.keys of an array (PHP's `[]`, or a list) gives "0", "1", ...
  const source = parsed as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const key of Object.keys(source)) {
    const text = settingString(source[key]);
    // A "__proto__" key from JSON is an own key: plain assignment would set the prototype instead.
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value: text, enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = text;
    }
  }
  return out;
}

/** `is_enabled` as a boolean up to 2025, 0/1/2 in 2026 (2 = enabled, email address not yet confirmed). */
function toEnabled(value: unknown): { is_enabled: boolean; is_pending: boolean } {
  if (typeof value === "boolean") return { is_enabled: value, is_pending: false };
  let n = Number.NaN;
  if (typeof value === "number") n = value;
  else if (typeof value === "string") {
    const s = value.trim().toLowerCase();
    n = s === "true" ? 1 : s === "false" || s === "" ? 0 : Number(s);
  }
  if (n === 2) return { is_enabled: true, is_pending: true };
  return { is_enabled: Number.isFinite(n) && n > 0, is_pending: false };
}

/**
 * One handler as returned, normalized (see `NotificationHandler`), or null when it is not an object
 * or has no usable id. What the schema runs; the methods below call it directly, since a safeParse
 * per item costs more than the reading itself on a 1000-handler page.
 */
export function readHandler(raw: unknown) {
  if (!isRecord(raw)) return null;
  const id = toId(raw.id);
  if (id === null) return null;
  const { is_enabled, is_pending } = toEnabled(raw.is_enabled);
  return {
    id,
    type: typeof raw.type === "string" && raw.type.trim() !== "" ? raw.type : null,
    name: settingString(raw.name),
    settings: toSettings(raw.settings),
    is_enabled,
    is_pending,
    last_datetime: typeof raw.last_datetime === "string" ? raw.last_datetime : null,
    // Present in every version; "" rather than a failure if a server ever leaves it out.
    datetime: typeof raw.datetime === "string" ? raw.datetime : "",
  };
}

/**
 * A notification handler as returned, normalized: `id` a number (from a number or numeric string),
 * `type` a string or null (2026 updates store null; a site may add types not in the catalog),
 * `settings` strings only, `is_enabled` boolean plus `is_pending` for 2026's `2`, `datetime` always a
 * string. Extra fields such as `user_id` are dropped. Only a non-object or a missing or unusable `id`
 * fails. (`z.unknown()` rather than `z.record()`: the transform reads every field itself, and a record
 * schema checking each key first cost more than the whole transform on a 1000-handler page.)
 */
export const NotificationHandlerRecord = z.unknown().transform((raw, ctx) => {
  const handler = readHandler(raw);
  if (handler === null) {
    if (isRecord(raw))
      ctx.addIssue({ code: "custom", message: "id is not a positive integer", path: ["id"] });
    else ctx.addIssue({ code: "custom", message: "expected an object" });
    return z.NEVER;
  }
  return handler;
});
/** A notification handler as returned, normalized. */
export type NotificationHandlerRecord = z.infer<typeof NotificationHandlerRecord>;

/** The settings of `handler` that belong to its type in the catalog (empty for an unknown or null type). */
export function typeSettings(
  handler: Pick<NotificationHandlerRecord, "type" | "settings">,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { field } of fieldsOf(handler.type ?? "")) {
    const value = handler.settings[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/** A list answer's `meta`, normalized (docs/api.md#deployed-list-meta); `page` is the page requested. */
export function metaOf(raw: unknown, page: number): PageMeta {
  const meta = isRecord(raw) ? raw : {};
  const normalized: PageMeta = {
    page,
    results_per_page: toInt(meta.results_per_page),
    // Deployed instances call it `total_results` (docs/api.md#deployed-list-meta).
    total: toInt(meta.total) ?? toInt(meta.total_results),
    total_pages: toInt(meta.total_pages),
  };
  if (meta.total !== undefined) normalized.dialect = "reference";
  else if (meta.total_results !== undefined) normalized.dialect = "deployed";
  return normalized;
}

/** A list answer's `links`, as written (strings or null). */
export function linksOf(raw: unknown): PageLinks {
  const links = isRecord(raw) ? raw : {};
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  return {
    first: str(links.first),
    last: str(links.last),
    next: str(links.next),
    prev: str(links.prev),
    self: str(links.self),
  };
}
