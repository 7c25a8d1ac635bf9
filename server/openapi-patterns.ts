/**
 * Regular expressions for the OpenAPI document (openapi.ts) where JSON Schema's own keywords cannot
 * say what the server's checks decide: lengths in UTF-16 code units after trimming, and whole numbers
 * up to a bound (URLs are the catalog's own pattern, sdk/client/domain/url-pattern.ts). ECMAScript syntax
 * read with the `u` flag, as JSON Schema 2020-12 asks; test/unit/openapi.test.ts holds each one to
 * the check it describes.
 */
import { numeralUpTo } from "#shared";

/** Any BMP code point, which counts one UTF-16 code unit. */
const BMP = String.raw`[\x00-\uFFFF]`;
/** Any code point outside the BMP, which counts two. */
const ASTRAL = String.raw`[^\x00-\uFFFF]`;
const ANY = String.raw`[\s\S]`;

/** A canonical decimal integer from 1 to `max`: no sign, no leading zero. */
export function canonicalIntegerPattern(max: bigint): string {
  return `^${numeralUpTo(max, 10)}$`;
}

/** At most `digits` decimal digits, leading zeros allowed, for a value from 1 to `max`. */
export function paddedIntegerPattern(max: bigint, digits: number): string {
  return `^(?=[0-9]{1,${digits}}$)0*${numeralUpTo(max, 10)}$`;
}

/**
 * A value that is 1 to `max` UTF-16 code units long once trimmed, blanks (JavaScript's `trim`, which
 * is `\s`) around it allowed. A BMP character counts one, any other two, which no JSON Schema keyword
 * counts: the value is too long when, for some k, it has at least k characters outside the BMP and at
 * least max + 1 - k characters in all.
 */
export function trimmedLengthPattern(max: number): string {
  /** At least k characters outside the BMP, from here on. */
  const astral = (k: number) => (k === 0 ? "" : `(?=(?:${BMP}*${ASTRAL}){${k}})`);
  /** At least n characters up to the last non-blank: the trimmed value is that long. */
  const characters = (n: number) => (n <= 0 ? "" : `(?=${ANY}{${n - 1}}${ANY}*?\\S)`);
  const last = Math.floor((max + 1) / 2);
  // Runs of k, each behind the checks all of its terms need, so that a value far from the limit
  // fails each run at once rather than each term (a few runs instead of hundreds of terms).
  const run = Math.ceil(Math.sqrt(last + 1));
  const runs: string[] = [];
  for (let first = 0; first <= last; first += run) {
    const end = Math.min(first + run - 1, last);
    const terms: string[] = [];
    for (let k = first; k <= end; k++) terms.push(`${astral(k)}${characters(max + 1 - k)}`);
    runs.push(`${astral(first)}${characters(max + 1 - end)}(?:${terms.join("|")})`);
  }
  // `(?=\S)` before the length check: backing off the leading blanks never runs it again.
  return `^\\s*(?=\\S)(?!${characters(max + 1 - last)}(?:${runs.join("|")}))${ANY}*\\S\\s*$`;
}

/** `pattern` (anchored with ^ and $) on the trimmed value: blanks around it allowed. */
export function trimmed(pattern: RegExp | string): string {
  const source = typeof pattern === "string" ? pattern : pattern.source;
  if (!source.startsWith("^") || !source.endsWith("$")) throw new Error(`unanchored pattern ${source}`);
  return `^\\s*(?:${source.slice(1, -1)})\\s*$`;
}

/** A literal text in a pattern: its syntax characters escaped, the only escapes the `u` flag allows. */
export function literal(text: string): string {
  return text.replace(/[\^$\\.*+?()[\]{}|/]/g, "\\$&");
}
