/**
 * Values to send in requests, made per catalog rule so that a new type or field is covered by its
 * catalog entry alone: valid values, blanks around them, lengths at the limit in and out of the
 * Basic Multilingual Plane, and values that break the rule. The OpenAPI tests hold the document's
 * verdict on each to the server's, which must be the same.
 */
import type { FieldRule } from "../../sdk/client/domain/catalog";
import type { SeededRandom } from "./seeded-random";

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
function lengthSamples(random: SeededRandom, rule: FieldRule, max: number): string[] {
  const samples: string[] = [];
  for (const units of [max - 1, max, max + 1]) {
    for (const filler of ["ascii", "astral", "astral-last"] as const) {
      const value = ofLength(rule, units, filler);
      if (value !== undefined) samples.push(random.chance(0.5) ? padded(random, value) : value);
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
      return urlSample(random);
  }
}

/**
 * Values to send for a field of `rule` at most `max` long: the valid value bare and padded, blanks
 * alone, lengths around the limit, for URLs the fixed `URL_SAMPLES`, and `count` generated ones
 * (built in the rule's shape or drawn from its characters; URLs from `urlSample`).
 */
export function fieldSamples(random: SeededRandom, rule: FieldRule, max: number, count: number): string[] {
  const isUrl = rule === "http-url" || rule === "https-url";
  const samples: string[] = [
    VALID[rule],
    padded(random, VALID[rule]),
    "",
    padded(random, ""),
    ...lengthSamples(random, rule, max),
    ...(isUrl ? URL_SAMPLES : []),
  ];
  for (let i = 0; i < count; i++) {
    if (isUrl) samples.push(urlSample(random));
    else if (random.chance(0.5)) samples.push(shapedSample(random, rule));
    else samples.push(textFrom(random, ALPHABETS[rule], 12));
  }
  return samples;
}

/** Names: the valid lengths around `max`, blanks, and generated texts. */
export function nameSamples(random: SeededRandom, max: number, count: number): string[] {
  const samples = [...lengthSamples(random, "non-empty", max), ""];
  for (let i = 0; i < count; i++) samples.push(shapedSample(random, "non-empty"));
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

/**
 * Hosts the parser refuses, and hosts it takes that the rule refuses: in Unicode (which IDNA maps or
 * refuses), percent-escaped, or holding a character the parser drops.
 */
const ODD_HOSTS = [
  "a b",
  "a<b",
  "a^b",
  "a|b",
  "a\\b",
  "",
  "a\u0001b",
  "a\u007fb",
  "[::1]x",
  "a[b]",
  "a%41",
  "a%25",
  "%41.example",
  "a%2eb",
  "a%zz",
  "a%",
  "\u00e9",
  "b\u00fccher.example",
  "B\u00dcCHER.example",
  "xn--bcher-kva.example",
  "\uff45xample.com",
  "a\u00adb",
  "a\u200db",
  "\u0661.example",
  "a\tb",
  "a\nb",
  "a\u0085b",
];

/** Blanks and control characters: the parser drops some, escapes others or refuses the URL. */
const STRAY = ["\t", "\n", "\r", " ", "\u0000", "\u0001", "\u001f", "\u007f", "\u0085", "\u00a0", "\u3000"];

/**
 * URLs the parser takes though the rule refuses them, beside the punycode form it accepts, and
 * others at the rule's edges: a host in Unicode or percent-escaped, tabs, line breaks and control
 * characters in and around the URL, blanks inside it, non-ASCII where the parser escapes it.
 */
export const URL_SAMPLES: readonly string[] = [
  "https://b\u00fccher.example/",
  "https://xn--bcher-kva.example/",
  "https://XN--BCHER-KVA.example/",
  "https://b%C3%BCcher.example/",
  "https://hooks%2Eexample.com/",
  "https://%68ooks.example.com/",
  "https://\uff48ooks.example.com/",
  "https://hooks.exa\tmple.com/",
  "https://hooks.exa\nmple.com/",
  "ht\ttps://hooks.example.com/",
  "https:/\r/hooks.example.com/",
  "https://hooks.example.com/a\tb",
  "https://hooks.example.com/a\nb",
  "https://hooks.example.com/a\r\nb",
  "https://hooks.example.com/a b",
  "https://hooks.example.com/a\u00a0b",
  "https://hooks.example.com/a\u3000b",
  "https://hooks.example.com/a\u0001b",
  "https://hooks.example.com/a\u007fb",
  "https://hooks.example.com/a\u0085b",
  "https://hooks.example.com/?q=\u0000",
  "https://hooks.example.com:8\t0/",
  "https://us\ter@hooks.example.com/",
  "\u0001https://hooks.example.com/",
  "\u0000https://hooks.example.com/",
  "https://hooks.example.com/\u0001",
  "https://hooks.example.com\u001f",
  " \u0001 https://hooks.example.com/",
  "https://hooks.example.com/ \u007f ",
  "https://hooks.example.com/\u00e9\u{1F600}",
  "https://\u00e9@hooks.example.com/",
  "https://hooks.example.com/%zz",
  "http://hooks.example.com/",
  "https:hooks.example.com",
  "https://[::1]/",
  "https://127.0.0.1/",
];

/** `value` with a blank or control character put in at a random place, or at either end. */
function strayed(random: SeededRandom, value: string): string {
  const at = random.chance(0.3) ? random.pick([0, value.length]) : random.int(value.length + 1);
  return `${value.slice(0, at)}${random.pick(STRAY)}${value.slice(at)}`;
}

/**
 * An http(s) URL as a user might write one, or a broken one: schemes in any case and others,
 * every run of slashes the parser skips, user info, domains (in Unicode or percent-escaped too),
 * IPv4 numbers in three radixes, IPv6 with and without compression, ports around 65535, any path,
 * and blanks or control characters anywhere.
 */
export function urlSample(random: SeededRandom): string {
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
  else host = random.pick(ODD_HOSTS);
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
  if (random.chance(0.1)) value = strayed(random, value);
  return random.chance(0.2) ? padded(random, value) : value;
}
