/**
 * How deployed instances rewrite the values they store (docs/api.md#deployed-value-cleaning), as a pure
 * function, so a provider can compare desired and live values without showing a change twice, and
 * the reference server can emulate a deployed instance.
 *
 * The steps, in order: strip tags; `"` becomes `&#34;` and `'` becomes `&#39;` (`&` is left alone);
 * trim; cut to the field's maximum length (names 128, phone fields 32, everything else 512);
 * `whatsapp` is then stored as an integer, which loses the `+` and any leading zeros.
 */

import { FIELD_MAX_LENGTH, NAME_MAX_LENGTH, fieldByName } from "./catalog";

// PHP's strip_tags: a `<` starts a tag unless whitespace follows it; an unclosed tag runs to the end.
const TAG = /<(?!\s)[^>]*>?/g;
const PHP_INT_MAX = 9_223_372_036_854_775_807n;

/** Longest stored value of a form field (`name` included), in characters. */
export function maxLengthOf(field: string): number {
  if (field === "name") return NAME_MAX_LENGTH;
  return fieldByName(field)?.maxLength ?? FIELD_MAX_LENGTH;
}

/** Strips tags and encodes quotes the way the deployed server's input filter does. */
function sanitize(value: string): string {
  return value.replace(TAG, "").replaceAll('"', "&#34;").replaceAll("'", "&#39;");
}

/** PHP's `(int)` cast of a string, printed back: leading sign and digits only, saturating at PHP_INT_MAX. */
function phpIntString(value: string): string {
  const match = /^[ \t\n\r\v\f]*([+-]?)(\d+)/.exec(value);
  if (!match) return "0";
  const digits = match[2] ?? "0";
  let n = BigInt(digits);
  if (match[1] === "-") n = -n;
  if (n > PHP_INT_MAX) n = PHP_INT_MAX;
  if (n < -PHP_INT_MAX - 1n) n = -PHP_INT_MAX - 1n;
  return n.toString();
}

/** The value a deployed instance stores (and later returns) for `value` sent in form field `field`. */
export function cleanLikeDeployed(field: string, value: string): string {
  // Cut by code points so a surrogate pair is never split (the server counts multibyte characters).
  const cleaned = Array.from(sanitize(value).trim()).slice(0, maxLengthOf(field)).join("");
  return field === "whatsapp" ? phpIntString(cleaned) : cleaned;
}

/**
 * Whether the live value `live` is what sending `desired` yields: equal, equal after trimming (the
 * reference server trims), or equal to what a deployed instance would store.
 */
export function equalAfterCleaning(field: string, desired: string, live: string): boolean {
  return live === desired || live === desired.trim() || live === cleanLikeDeployed(field, desired);
}
