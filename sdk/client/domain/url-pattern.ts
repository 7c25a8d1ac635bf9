/**
 * The URL values the catalog's URL rules accept, written as a regular expression, so that the rule and
 * the OpenAPI document's pattern are one text: the server, the provider and a client generated from the
 * document then refuse the same values. ECMAScript syntax read with the `u` flag, as JSON Schema
 * 2020-12 reads patterns; test/unit/openapi.test.ts holds it to Node's URL parser.
 */

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

/** `word` in any case of its ASCII letters. */
export function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join("");
}

// The host of an http(s) URL, as the WHATWG URL Standard parses it (Node's parser follows it).

/** ASCII that may appear in a domain: not a forbidden domain code point, and not `%`. */
const HOST_CHAR = "[!\"$&'()*+,.0-9;=A-Z_`a-z{}~-]";

/**
 * Any character but a blank (`\s`, which trimming drops) or a control character (C0, DEL, C1): the
 * parser drops some of these and escapes others, so a value holding one would not be stored as read.
 */
const URL_CHAR = String.raw`[^\s\x00-\x1F\x7F-\x9F]`;
/** A URL_CHAR that does not end the authority. */
const AUTHORITY_CHAR = String.raw`[^\s\x00-\x1F\x7F-\x9F/\\?#]`;

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
 * The absolute URLs of `schemes` (anchored, for a value already trimmed) that the URL rules accept:
 * the host an IPv4 or IPv6 address or an ASCII domain that does not end in a number (the parser reads
 * those as IPv4, and refuses them when they are not one), no blank or control character anywhere.
 * Within that, exactly what Node's URL parser takes, its leniency included: any number of `/` or `\`
 * after the scheme, user info, an empty port, anything after the host, and `xn--` labels as they are
 * (Node does not decode them). A host in Unicode or with `%` is refused: which of those IDNA takes
 * is more than a pattern can say, and the punycode form says the same.
 */
export function urlPattern(schemes: readonly string[]): string {
  const scheme = `(?:${schemes.map(anyCase).join("|")})`;
  const endsInNumber = `(?:${HOST_CHAR}*\\.)?(?:[0-9]+|0[Xx][0-9A-Fa-f]*)\\.?(?!${HOST_CHAR})`;
  const domain = `(?!${endsInNumber})${HOST_CHAR}+`;
  const host = `(?:\\[${ipv6Pattern()}\\]|${ipv4Pattern()}(?!${HOST_CHAR})|${domain})`;
  const port = `(?::0*${numeralUpTo(65_535n, 10)}?)?`;
  return `^${scheme}:[/\\\\]*(?:${AUTHORITY_CHAR}*@)?${host}${port}(?:[/\\\\?#]${URL_CHAR}*)?$`;
}
