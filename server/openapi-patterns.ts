/**
 * Regular expressions for the OpenAPI document (openapi.ts) where JSON Schema's own keywords cannot
 * say what the server's checks decide: lengths in UTF-16 code units after trimming, whole numbers up
 * to a bound, and the URLs Node's WHATWG URL parser takes. ECMAScript syntax read with the `u` flag,
 * as JSON Schema 2020-12 asks; test/unit/openapi.test.ts holds each one to the check it describes.
 */

/** Any BMP code point, which counts one UTF-16 code unit. */
const BMP = String.raw`[\x00-\uFFFF]`;
/** Any code point outside the BMP, which counts two. */
const ASTRAL = String.raw`[^\x00-\uFFFF]`;
const ANY = String.raw`[\s\S]`;

/** `pattern` repeated from `min` to `max` times. */
function times(pattern: string, min: number, max = min): string {
  if (max === 0) return "";
  if (min === 1 && max === 1) return pattern;
  // One character or one class takes a quantifier as it is; anything longer needs a group.
  const atom = /^(?:\\?.|\[(?:\\.|[^\]\\])*\])$/u.test(pattern) ? pattern : `(?:${pattern})`;
  if (min === max) return `${atom}{${max}}`;
  return min === 0 && max === 1 ? `${atom}?` : `${atom}{${min},${max}}`;
}

/** The digits `lo` to `hi` of `radix` as a character class; letters in both cases. */
function digitClass(lo: number, hi: number, radix: number): string {
  const ranges: string[] = [];
  const span = (from: number, to: number, first: string) => {
    const start = String.fromCharCode(first.charCodeAt(0) + from);
    const end = String.fromCharCode(first.charCodeAt(0) + to);
    ranges.push(from === to ? start : `${start}-${end}`);
  };
  if (lo <= Math.min(hi, 9)) span(lo, Math.min(hi, 9), "0");
  if (radix > 10 && hi >= 10) {
    span(Math.max(lo, 10) - 10, hi - 10, "a");
    span(Math.max(lo, 10) - 10, hi - 10, "A");
  }
  const only = ranges.length === 1 && lo === hi && hi < 10;
  return only ? ranges.join("") : `[${ranges.join("")}]`;
}

/**
 * The numerals of `radix` for the values 1 to `max`, without leading zeros: shorter numerals, then
 * for each position a smaller digit after the same leading digits as `max`.
 */
export function numeralUpTo(max: bigint, radix: 8 | 10 | 16): string {
  const digits = [...max.toString(radix)].map((d) => parseInt(d, radix));
  const any = digitClass(0, radix - 1, radix);
  const alternatives: string[] = [];
  if (digits.length > 1)
    alternatives.push(`${digitClass(1, radix - 1, radix)}${times(any, 0, digits.length - 2)}`);
  digits.forEach((digit, i) => {
    const lo = i === 0 ? 1 : 0;
    // The last position may also equal max's own digit: that numeral is max.
    const hi = i === digits.length - 1 ? digit : digit - 1;
    if (hi < lo) return;
    const same = digits.slice(0, i).map((d) => digitClass(d, d, radix));
    alternatives.push(`${same.join("")}${digitClass(lo, hi, radix)}${times(any, digits.length - 1 - i)}`);
  });
  return `(?:${alternatives.join("|")})`;
}

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

/** `word` in any case of its ASCII letters. */
export function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join("");
}

/** A literal text in a pattern: its syntax characters escaped, the only escapes the `u` flag allows. */
export function literal(text: string): string {
  return text.replace(/[\^$\\.*+?()[\]{}|/]/g, "\\$&");
}

// The host of an http(s) URL, as the WHATWG URL Standard parses it (Node's parser follows it).

/** ASCII that may appear in a domain: not a forbidden domain code point, not `%` (see urlPattern). */
const HOST_CHAR = "[!\"$&'()*+,.0-9;=A-Z_`a-z{}~-]";

/** One number of an IPv4 address up to `max`: hexadecimal after 0x, octal after a 0, else decimal. */
function ipv4Number(max: bigint): string {
  return `(?:0[Xx]0*${numeralUpTo(max, 16)}?|0+${numeralUpTo(max, 8)}?|${numeralUpTo(max, 10)})`;
}

/** 1 to 4 numbers and an optional final dot; the last number fills the bytes the others leave. */
function ipv4Pattern(): string {
  const byte = ipv4Number(255n);
  const forms = [4, 3, 2, 1].map(
    (parts) => `${times(`${byte}\\.`, parts - 1)}${ipv4Number(256n ** BigInt(5 - parts) - 1n)}`,
  );
  return `(?:${forms.join("|")})\\.?`;
}

/** RFC 3986's IPv6address, which is what the URL Standard's IPv6 parser accepts. */
function ipv6Pattern(): string {
  const h16 = "[0-9A-Fa-f]{1,4}";
  const octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
  const ls32 = `(?:${h16}:${h16}|${octet}(?:\\.${octet}){3})`;
  /** Exactly `n` pieces; an IPv4 address may end them, as two. */
  const pieces = (n: number) => (n === 0 ? "" : n === 1 ? h16 : `${times(`${h16}:`, n - 2)}${ls32}`);
  const forms = [`${times(`${h16}:`, 6)}${ls32}`];
  // `::` stands for at least one piece: up to `before` pieces before it, 7 - before after it.
  for (let before = 0; before <= 7; before++) {
    const head = before === 0 ? "" : `(?:${times(`${h16}:`, 0, before - 1)}${h16})?`;
    forms.push(`${head}::${pieces(7 - before)}`);
  }
  return `(?:${forms.join("|")})`;
}

/**
 * The absolute URLs of `schemes` that Node's URL parser takes, as the server checks them (trimmed,
 * then `URL.canParse`), for the hosts a pattern can decide: an IPv4 or IPv6 address, or an ASCII
 * domain that does not end in a number (the parser reads those as IPv4, and refuses them when they
 * are not one). The parser's leniency comes along: any number of `/` or `\` after the scheme, user
 * info, an empty port, anything after the host, and ASCII `xn--` labels as they are (Node does not
 * decode them; test/unit/openapi.test.ts would see it start). Left out, as the description says:
 * hosts in Unicode or with `%`, whose validity takes IDNA's tables, and the control characters the
 * parser drops around the URL and the tabs and line breaks it drops inside it.
 */
export function urlPattern(schemes: readonly string[]): string {
  const scheme = `(?:${schemes.map(anyCase).join("|")})`;
  const endsInNumber = `(?:${HOST_CHAR}*\\.)?(?:[0-9]+|0[Xx][0-9A-Fa-f]*)\\.?(?!${HOST_CHAR})`;
  const domain = `(?!${endsInNumber})${HOST_CHAR}+`;
  const host = `(?:\\[${ipv6Pattern()}\\]|${ipv4Pattern()}(?!${HOST_CHAR})|${domain})`;
  const port = `(?::0*${numeralUpTo(65_535n, 10)}?)?`;
  return trimmed(`^${scheme}:[/\\\\]*(?:[^/\\\\?#]*@)?${host}${port}(?:[/\\\\?#]${ANY}*)?$`);
}
