/**
 * Values to send in requests, made per catalog rule so that a new type or field is covered by its
 * catalog entry alone: valid values, blanks around them, lengths at the limit in and out of the
 * Basic Multilingual Plane, and values that break the rule. The OpenAPI tests hold the document's
 * verdict on each to the server's.
 */
import type { FieldRule } from "../../sdk/client/catalog";
import type { SeededRandom } from "./seeded-random";

/** A value to send. `exact` is false where the document refuses by design what the server may take. */
export interface Sample {
  readonly value: string;
  readonly exact: boolean;
}

/** A value each rule accepts. */
export const VALID: Record<FieldRule, string> = {
  email: "ops@example.com",
  "http-url": "http://hooks.example.com/a",
  "https-url": "https://hooks.example.com/a",
  "telegram-token": "123456:AAE-x_y",
  "telegram-chat-id": "-1001234",
  "non-empty": "s3cr3t",
  phone: "+15551234567",
};

/** What JavaScript's `trim` drops, which the server applies to every form value: ASCII and Unicode. */
export const BLANKS = [" ", "\t", "\n", "\r", "\u00a0", "\u2028", "\u3000", "\ufeff"] as const;

/** One character outside the BMP: two UTF-16 code units. */
const ASTRAL = "\u{1F600}";

/** How a text of a given length is filled: ASCII, characters outside the BMP, or ASCII ending in one. */
type Filler = "ascii" | "astral" | "astral-last";

/** A text of exactly `units` UTF-16 code units (at least 1). */
function fill(units: number, filler: Filler): string {
  switch (filler) {
    case "ascii":
      return "a".repeat(units);
    case "astral":
      return ASTRAL.repeat(Math.floor(units / 2)) + "a".repeat(units % 2);
    case "astral-last":
      return units < 2 ? "a".repeat(units) : "a".repeat(units - 2) + ASTRAL;
  }
}

/**
 * A value of `rule` exactly `units` UTF-16 code units long that breaks nothing but, perhaps, the
 * length; undefined when the rule has none (a phone number has at most 16 characters).
 */
function ofLength(rule: FieldRule, units: number, filler: Filler): string | undefined {
  const withPrefix = (prefix: string, suffix = "") => {
    const rest = units - prefix.length - suffix.length;
    return rest < 1 ? undefined : `${prefix}${fill(rest, filler)}${suffix}`;
  };
  const ascii = (value: string | undefined) => (filler === "ascii" ? value : undefined);
  switch (rule) {
    case "email":
      return withPrefix("", "@example.com");
    case "http-url":
      return withPrefix("http://h.example/");
    case "https-url":
      return withPrefix("https://h.example/");
    case "telegram-token":
      return ascii(withPrefix("1:"));
    case "telegram-chat-id":
      return ascii(withPrefix("@"));
    case "non-empty":
      return fill(units, filler);
    case "phone":
      return ascii(units >= 8 && units <= 16 ? `+${"1".repeat(units - 1)}` : undefined);
  }
}

/** `value` with blanks around it, which the server drops. */
function padded(random: SeededRandom, value: string): string {
  const blanks = () => Array.from({ length: 1 + random.int(3) }, () => random.pick(BLANKS)).join("");
  return `${blanks()}${value}${blanks()}`;
}

/** A text of up to `max` characters drawn from `alphabet` (whole characters, never half of a pair). */
export function textFrom(random: SeededRandom, alphabet: readonly string[], max: number): string {
  return Array.from({ length: random.int(max + 1) }, () => random.pick(alphabet)).join("");
}

/**
 * Lengths around `max`: valid values one shorter, at and one over the limit, in ASCII and with
 * characters outside the BMP; each bare or padded (blanks do not count).
 */
function lengthSamples(random: SeededRandom, rule: FieldRule, max: number): Sample[] {
  const samples: Sample[] = [];
  for (const units of [max - 1, max, max + 1]) {
    for (const filler of ["ascii", "astral", "astral-last"] as const) {
      const value = ofLength(rule, units, filler);
      if (value !== undefined)
        samples.push({ value: random.chance(0.5) ? padded(random, value) : value, exact: true });
    }
  }
  return samples;
}

const chars = (text: string): string[] => [...text];

/** Characters to build values of each rule from, the ones that matter to it and some that break it. */
const ALPHABETS: Record<Exclude<FieldRule, "http-url" | "https-url">, string[]> = {
  email: [...chars("ab.@_+-é"), " ", '"', "<", ",", ";", ":", "[", "\\", ASTRAL, "\u00a0"],
  "telegram-token": [...chars("0123456789:aZ_-+. "), "é"],
  "telegram-chat-id": [...chars("-@0123456789aZ_ +.")],
  "non-empty": [...chars("a "), "\t", "\u3000", ASTRAL, "\u0000"],
  phone: [...chars("+0123456789 -()"), "\u0661"],
};

/** Values built in the shape of each rule, some parts broken. */
function shapedSample(random: SeededRandom, rule: FieldRule): string {
  const part = (rule: keyof typeof ALPHABETS, max: number) => textFrom(random, ALPHABETS[rule], max);
  switch (rule) {
    case "email": {
      // Mostly letters, so that about half of the addresses are valid.
      const local = () =>
        random.chance(0.7) ? textFrom(random, chars("ab.-+\u00e9"), 6) || "a" : part("email", 6);
      return `${local()}@${local()}.${local()}`;
    }
    case "telegram-token":
      return `${textFrom(random, chars("0123456789-"), 8)}:${part("telegram-token", 10)}`;
    case "telegram-chat-id":
      return random.chance(0.5)
        ? `${random.pick(["", "-", "--", "+"])}${textFrom(random, chars("0123456789a"), 10)}`
        : `@${textFrom(random, chars("aZ09_-@ "), 8)}`;
    case "non-empty":
      return part("non-empty", 6);
    case "phone":
      return `${random.pick(["+", "", "++", " +"])}${textFrom(random, chars("0123456789"), 18)}`;
    case "http-url":
    case "https-url":
      return urlSample(random).value;
  }
}

/**
 * Values to send for a field of `rule` at most `max` long: the valid value bare and padded, blanks
 * alone, lengths around the limit, and `count` generated ones (built in the rule's shape or drawn
 * from its characters; URLs from `urlSample`).
 */
export function fieldSamples(random: SeededRandom, rule: FieldRule, max: number, count: number): Sample[] {
  const samples: Sample[] = [
    { value: VALID[rule], exact: true },
    { value: padded(random, VALID[rule]), exact: true },
    { value: "", exact: true },
    { value: padded(random, ""), exact: true },
    ...lengthSamples(random, rule, max),
  ];
  const isUrl = rule === "http-url" || rule === "https-url";
  for (let i = 0; i < count; i++) {
    if (isUrl) samples.push(urlSample(random));
    else if (random.chance(0.5)) samples.push({ value: shapedSample(random, rule), exact: true });
    else samples.push({ value: textFrom(random, ALPHABETS[rule], 12), exact: true });
  }
  return samples;
}

/** Names: the valid lengths around `max`, blanks, and generated texts. */
export function nameSamples(random: SeededRandom, max: number, count: number): Sample[] {
  const samples = [...lengthSamples(random, "non-empty", max), { value: "", exact: true }];
  for (let i = 0; i < count; i++) samples.push({ value: shapedSample(random, "non-empty"), exact: true });
  return samples;
}

/** A number up to about `max`, written in decimal, octal (a leading 0) or hexadecimal (0x). */
function ipv4Number(random: SeededRandom, max: number): string {
  const value = random.chance(0.5) ? random.int(max + 3) : Math.floor(random.next() * max * 1.01);
  const radix = random.pick([10, 10, 8, 16]);
  const digits = value.toString(radix);
  if (radix === 8) return `0${digits}`;
  if (radix === 16) return `${random.pick(["0x", "0X"])}${random.chance(0.1) ? "" : digits}`;
  return digits;
}

function ipv4Host(random: SeededRandom): string {
  const count = 1 + random.int(5);
  const parts = Array.from({ length: count }, (_, i) =>
    i < count - 1
      ? ipv4Number(random, random.chance(0.8) ? 255 : 70_000)
      : ipv4Number(random, random.pick([255, 65_535, 16_777_215, 4_294_967_295])),
  );
  return parts.join(".") + random.pick(["", "", "", ".", ".."]);
}

function ipv6Host(random: SeededRandom): string {
  const hex = chars("0123456789abcdefABCDEF");
  const groups = Array.from({ length: random.int(10) }, () =>
    random.chance(0.9) ? textFrom(random, hex, 4) || "0" : textFrom(random, hex, 6),
  );
  if (random.chance(0.3)) {
    groups.push(random.pick(["1.2.3.4", "255.255.255.255", "01.2.3.4", "256.1.1.1", "1.2.3"]));
  }
  let text = groups.join(":");
  if (random.chance(0.6)) {
    // Compress somewhere: at the start, between two groups, or at the end.
    const at = random.int(groups.length + 1);
    const head = groups.slice(0, at).join(":");
    const tail = groups.slice(at).join(":");
    text = `${head}::${tail}`;
  }
  return `[${text}]`;
}

function domainHost(random: SeededRandom): string {
  const labelChars = chars("abcXYZ019-_!\"$&'()*+,;=`{}~");
  const labels = Array.from({ length: 1 + random.int(4) }, () =>
    random.chance(0.2)
      ? `${random.pick(["xn--", "xn--a", "0x", "0x1g", "08", "1", "a1"])}${textFrom(random, chars("ab1"), 2)}`
      : textFrom(random, labelChars, 6),
  );
  const last = random.chance(0.1) ? random.pick(["1", "0x", "08", "0xff"]) : "";
  return `${labels.join(".")}${last === "" ? "" : `.${last}`}${random.chance(0.15) ? "." : ""}`;
}

/** Hosts the parser refuses, and ones the document leaves to its description (`exact` false). */
const ODD_HOSTS: ReadonlyArray<readonly [string, boolean]> = [
  ["a b", true],
  ["a<b", true],
  ["a^b", true],
  ["a|b", true],
  ["a\\b", true],
  ["", true],
  ["a\u0001b", true],
  ["a\u007fb", true],
  ["[::1]x", true],
  ["a[b]", true],
  ["a%41", false],
  ["a%25", false],
  ["\u00e9", false],
  ["b\u00fccher.example", false],
  ["a\tb", false],
];

/**
 * An http(s) URL as a user might write one, or a broken one: schemes in any case and others,
 * every run of slashes the parser skips, user info, domains, IPv4 numbers in three radixes, IPv6
 * with and without compression, ports around 65535, any path. Hosts in Unicode or with `%`, and
 * control characters the parser drops, are marked `exact: false`: the document refuses them, which
 * its description says, though the server may take them.
 */
export function urlSample(random: SeededRandom): Sample {
  let exact = true;
  const scheme = random.chance(0.9)
    ? random.pick(["http", "https", "HTTPS", "Http"])
    : random.pick(["ftp", "htp", "httpss", "ws", ""]);
  const separator = random.pick(["://", "://", "://", ":", ":/", ":\\\\", ":///", ":/\\", "//"]);
  const user = random.chance(0.15) ? `${random.pick(["u", "u:p", "", "a@b", "x y", "\u00e9"])}@` : "";
  let host: string;
  const kind = random.int(10);
  if (kind < 5) host = domainHost(random);
  else if (kind < 7) host = ipv4Host(random);
  else if (kind < 9) host = ipv6Host(random);
  else {
    const [odd, oddExact] = random.pick(ODD_HOSTS);
    host = odd;
    exact = oddExact;
  }
  const ports = [
    "",
    "80",
    "0",
    "65535",
    "65536",
    "000065535",
    "99999",
    "a",
    "8 0",
    String(random.int(70_000)),
  ];
  const port = random.chance(0.25) ? `:${random.pick(ports)}` : "";
  const rest = random.chance(0.5)
    ? `${random.pick(["/", "?", "#", "\\"])}${textFrom(random, [...chars("ab/ ?#%\u00e9"), ASTRAL, "\t"], 6)}`
    : "";
  let value = `${scheme}${separator}${user}${host}${port}${rest}`;
  if (random.chance(0.05)) {
    // A control character before the scheme or at the very end, which the parser drops.
    value = random.chance(0.5) ? `\u0001${value}` : `${value}\u0001`;
    exact = false;
  }
  return { value: random.chance(0.2) ? padded(random, value) : value, exact };
}
