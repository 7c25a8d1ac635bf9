/**
 * What both stores share below SQL: the API key format and its hash, the case folding of names, the
 * settings column, and how a database location is told apart and shown without its password.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { HandlerRecord } from "./repository";

// A key is `nhk_<lookup>_<secret>`: the lookup finds the row without comparing secrets in SQL,
// then the hash of the whole key is compared in constant time.
const KEY_PATTERN = /^nhk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const DUMMY_HASH = Buffer.alloc(32);

/** A new API key and the lookup part it is found by. */
export function newApiKey(): { key: string; lookup: string } {
  const lookup = randomBytes(8).toString("hex");
  return { key: `nhk_${lookup}_${randomBytes(32).toString("base64url")}`, lookup };
}

/** The SHA-256 of a key: the only form of it a store keeps. */
export function hashKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** The lookup part of a well-formed key, or undefined. */
export function keyLookup(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

/**
 * Whether `key` hashes to `stored` (the row its lookup found, or undefined). The hash is compared
 * even when there is no row, so a miss costs about what a hit costs.
 */
export function keyMatches(key: string, stored: Uint8Array | undefined): boolean {
  const expected = stored instanceof Uint8Array && stored.length === 32 ? stored : DUMMY_HASH;
  const equal = timingSafeEqual(hashKey(key), expected);
  return equal && expected !== DUMMY_HASH;
}

/** Folds case for search and ordering the same way in both stores (SQL's own lower() differs). */
export function fold(value: string): string {
  return value.toLowerCase();
}

/** The settings column (a JSON object of strings) as an object. */
function parseSettings(json: string): Record<string, string> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error("settings column is not a JSON object");
  }
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== "string") throw new Error(`settings.${key} is not a string`);
    settings[key] = value;
  }
  return settings;
}

/** A row as a driver answers it: column name to value. */
export type Row = Readonly<Record<string, unknown>>;

/** An integer column; 64-bit ones may arrive as strings (pg keeps them exact). Ids fit in 2^53. */
export function intColumn(row: Row, column: string): number {
  const value = row[column];
  const number = typeof value === "string" ? Number(value) : value;
  if (typeof number === "number" && Number.isSafeInteger(number)) return number;
  throw new Error(`column ${column} is not an integer`);
}

/** A text column. */
export function textColumn(row: Row, column: string): string {
  const value = row[column];
  if (typeof value === "string") return value;
  throw new Error(`column ${column} is not text`);
}

function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : textColumn(row, column);
}

/**
 * A notification_handlers row as a record. The name and the flag are read by the store, whose
 * column types for them differ (SQLite: text and 0/1; PostgreSQL: bytes and a boolean).
 */
export function handlerFromRow(row: Row, name: string, isEnabled: boolean): HandlerRecord {
  return {
    id: intColumn(row, "id"),
    userId: intColumn(row, "user_id"),
    type: textOrNull(row, "type"),
    name,
    settings: parseSettings(textColumn(row, "settings")),
    isEnabled,
    lastDatetime: textOrNull(row, "last_datetime"),
    datetime: textColumn(row, "datetime"),
    activationCode: textOrNull(row, "email_activation_code"),
  };
}

const POSTGRES_SCHEMES = ["postgres:", "postgresql:"];

/** Whether a database location is a URL (`scheme://`) rather than a file path. */
export function urlScheme(location: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(location)?.[1];
}

/** Whether a database location names a PostgreSQL server. */
export function isPostgresUrl(location: string): boolean {
  const scheme = urlScheme(location);
  return scheme !== undefined && POSTGRES_SCHEMES.includes(`${scheme.toLowerCase()}:`);
}

/** A database URL fit for a log line or an error: the password replaced, the rest as given. */
export function maskedDatabaseUrl(location: string): string {
  if (!URL.canParse(location)) return `${urlScheme(location) ?? "database"}://[unparseable URL]`;
  const url = new URL(location);
  if (url.password !== "") url.password = "***";
  for (const name of [...url.searchParams.keys()]) {
    if (/password|secret|key/i.test(name)) url.searchParams.set(name, "***");
  }
  return url.toString();
}
