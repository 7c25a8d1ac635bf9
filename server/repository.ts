/**
 * The store behind the service: users, their API keys and their notification handlers, in SQLite.
 *
 * This is the only file with SQL. Every method is synchronous (node:sqlite), so a route that reads
 * a handler and writes it back in the same tick cannot interleave with another request.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from "node:sqlite";

/** A stored notification handler. `settings` holds exactly the fields of its type. */
export interface HandlerRecord {
  readonly id: number;
  readonly userId: number;
  /** Null only after an emulated 2026 update damaged the handler (CONTRACT.md Part B, "Writes"). */
  readonly type: string | null;
  readonly name: string;
  readonly settings: Readonly<Record<string, string>>;
  readonly isEnabled: boolean;
  /** UTC `Y-m-d H:i:s` of the last successful update, or null until one. */
  readonly lastDatetime: string | null;
  /** UTC `Y-m-d H:i:s` of creation. */
  readonly datetime: string;
  /**
   * The code an emulated deployed instance mailed to confirm an email address, while it is not
   * confirmed; null otherwise. The reference server never sets it.
   */
  readonly activationCode: string | null;
}

/** What create and update write: every column a client controls. */
export interface HandlerData {
  readonly type: string | null;
  readonly name: string;
  readonly settings: Readonly<Record<string, string>>;
  readonly isEnabled: boolean;
  /** The pending email confirmation code; absent means none on create and "unchanged" on update. */
  readonly activationCode?: string | null;
}

/** The columns a list can be ordered by, keyed by the API's `order_by` values. */
export type HandlerOrderBy = "notification_handler_id" | "datetime" | "last_datetime" | "name";

/** Filters and order of a handler list; all filters are ANDed. */
export interface HandlerListFilter {
  /** Case-insensitive substring of the name; `%` and `_` are plain characters. */
  readonly search?: string;
  readonly isEnabled?: boolean;
  readonly type?: string;
  readonly datetimeField: "datetime" | "last_datetime";
  /** Inclusive lower bound, UTC `Y-m-d H:i:s`. */
  readonly datetimeStart?: string;
  /** Inclusive upper bound, UTC `Y-m-d H:i:s`. */
  readonly datetimeEnd?: string;
  readonly orderBy: HandlerOrderBy;
  readonly orderType: "ASC" | "DESC";
}

/** One page of a list and the number of all matches. */
export interface HandlerListResult {
  readonly records: readonly HandlerRecord[];
  readonly total: number;
}

/** Who a valid API key belongs to. */
export interface Principal {
  readonly userId: number;
  readonly keyId: number;
  /** An administrator key: emulated deployed instances do not rate-limit it (CONTRACT.md Part B). */
  readonly isAdmin: boolean;
}

/** Options of a new API key. */
export interface ApiKeyOptions {
  /** Issue an administrator key. */
  readonly admin?: boolean;
}

/** The store the service runs on. */
export interface Repository {
  /** The id of the user called `name`, created if needed. */
  ensureUser(name: string, now: string): number;
  /** Creates a new API key for a user and returns it; only its hash is stored. */
  createApiKey(userId: number, now: string, options?: ApiKeyOptions): string;
  /** Marks a key revoked; it stops working at once. Returns whether a live key was revoked. */
  revokeApiKey(key: string, now: string): boolean;
  /** The owner of a live key, or undefined for an unknown, malformed or revoked key. */
  authenticate(key: string): Principal | undefined;
  createHandler(userId: number, data: HandlerData, now: string): HandlerRecord;
  /** The user's handler, or undefined when it does not exist or belongs to someone else. */
  getHandler(userId: number, id: number): HandlerRecord | undefined;
  /** Replaces the handler's data and sets its `last_datetime`; undefined when it is not the user's. */
  updateHandler(userId: number, id: number, data: HandlerData, now: string): HandlerRecord | undefined;
  /** Deletes the user's handler; false when it is not the user's. */
  deleteHandler(userId: number, id: number): boolean;
  /** One page of the user's handlers that match `filter`, and the count of all matches. */
  listHandlers(userId: number, filter: HandlerListFilter, limit: number, offset: number): HandlerListResult;
  /** Runs a trivial query; throws when the database does not answer (closed, unreadable, locked). */
  ping(): void;
  /** Closes the database; the repository is unusable afterwards. */
  close(): void;
}

/**
 * The schema, one entry per version. A database records the version it is at and gets the missing
 * entries applied in order, so an existing file is upgraded in place. Never edit a shipped entry.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    lookup TEXT NOT NULL UNIQUE,
    key_hash BLOB NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE notification_handlers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    name TEXT NOT NULL,
    settings TEXT NOT NULL,
    is_enabled INTEGER NOT NULL CHECK (is_enabled IN (0, 1)),
    last_datetime TEXT,
    datetime TEXT NOT NULL
  );
  CREATE INDEX notification_handlers_user ON notification_handlers (user_id, id);
  `,
  // Version 2, for the emulation of deployed instances: administrator keys, a nullable type (2026
  // updates store type = null) and the pending email confirmation. SQLite cannot drop a NOT NULL,
  // so the table is rebuilt; its AUTOINCREMENT counter is carried over, so ids are never reused.
  `
  ALTER TABLE api_keys ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1));
  CREATE TABLE notification_handlers_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    type TEXT,
    name TEXT NOT NULL,
    settings TEXT NOT NULL,
    is_enabled INTEGER NOT NULL CHECK (is_enabled IN (0, 1)),
    last_datetime TEXT,
    datetime TEXT NOT NULL,
    email_activation_code TEXT
  );
  INSERT INTO notification_handlers_v2 (id, user_id, type, name, settings, is_enabled, last_datetime, datetime)
    SELECT id, user_id, type, name, settings, is_enabled, last_datetime, datetime FROM notification_handlers;
  DELETE FROM sqlite_sequence WHERE name = 'notification_handlers_v2';
  INSERT INTO sqlite_sequence (name, seq)
    SELECT 'notification_handlers_v2', seq FROM sqlite_sequence WHERE name = 'notification_handlers';
  DROP TABLE notification_handlers;
  ALTER TABLE notification_handlers_v2 RENAME TO notification_handlers;
  CREATE INDEX notification_handlers_user ON notification_handlers (user_id, id);
  `,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

// A key is `nhk_<lookup>_<secret>`: the lookup finds the row without comparing secrets in SQL,
// then the hash of the whole key is compared in constant time.
const KEY_PATTERN = /^nhk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const DUMMY_HASH = Buffer.alloc(32);

function hashKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** Folds case for search and ordering; SQLite's own lower() only folds ASCII. */
function fold(value: string): string {
  return value.toLowerCase();
}

const ORDER_COLUMNS: Record<HandlerOrderBy, string> = {
  notification_handler_id: "id",
  datetime: "datetime",
  last_datetime: "last_datetime",
  name: "nh_fold(name)",
};

type Row = Record<string, SQLOutputValue>;

function int(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  throw new Error(`column ${column} is not an integer`);
}

function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value === "string") return value;
  throw new Error(`column ${column} is not text`);
}

function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

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

function toRecord(row: Row): HandlerRecord {
  return {
    id: int(row, "id"),
    userId: int(row, "user_id"),
    type: textOrNull(row, "type"),
    name: text(row, "name"),
    settings: parseSettings(text(row, "settings")),
    isEnabled: int(row, "is_enabled") === 1,
    lastDatetime: textOrNull(row, "last_datetime"),
    datetime: text(row, "datetime"),
    activationCode: textOrNull(row, "email_activation_code"),
  };
}

class SqliteRepository implements Repository {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    try {
      // A second process (`keys create` beside a running server) may hold the write lock briefly.
      this.#db.exec("PRAGMA busy_timeout = 5000"); // 5 s
      // WAL lets readers and the one writer work at once. synchronous=FULL syncs the WAL on every
      // commit: NORMAL would already survive a killed process, FULL also survives a power cut, and
      // this service writes rarely enough not to notice the cost.
      this.#db.exec("PRAGMA journal_mode = WAL");
      this.#db.exec("PRAGMA synchronous = FULL");
      this.#db.exec("PRAGMA foreign_keys = ON");
      this.#db.function("nh_fold", { deterministic: true }, (value) =>
        typeof value === "string" ? fold(value) : value,
      );
      this.#migrate();
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  #migrate(): void {
    this.#db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    this.#transaction(() => {
      const row = this.#db.prepare("SELECT max(version) AS version FROM schema_version").get();
      const current = row?.["version"] ?? 0;
      if (typeof current !== "number") throw new Error("schema_version is corrupt");
      if (current > MIGRATIONS.length) {
        throw new Error(`database schema version ${current} is newer than this server (${SCHEMA_VERSION})`);
      }
      for (let version = current + 1; version <= MIGRATIONS.length; version++) {
        this.#db.exec(MIGRATIONS[version - 1] ?? "");
      }
      if (current < MIGRATIONS.length) {
        this.#db.exec("DELETE FROM schema_version");
        this.#db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(MIGRATIONS.length);
      }
    });
  }

  /** Runs `work` in a write transaction, taken at once so two processes never deadlock upgrading. */
  #transaction<T>(work: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  ensureUser(name: string, now: string): number {
    this.#statement("INSERT OR IGNORE INTO users (name, created_at) VALUES (?, ?)").run(name, now);
    const row = this.#statement("SELECT id FROM users WHERE name = ?").get(name);
    if (row === undefined) throw new Error(`user ${name} vanished`);
    return int(row, "id");
  }

  createApiKey(userId: number, now: string, options: ApiKeyOptions = {}): string {
    const lookup = randomBytes(8).toString("hex");
    const key = `nhk_${lookup}_${randomBytes(32).toString("base64url")}`;
    this.#statement(
      "INSERT INTO api_keys (user_id, lookup, key_hash, created_at, is_admin) VALUES (?, ?, ?, ?, ?)",
    ).run(userId, lookup, hashKey(key), now, options.admin === true ? 1 : 0);
    return key;
  }

  #liveKey(key: string): Row | undefined {
    const match = KEY_PATTERN.exec(key);
    const row =
      match?.[1] === undefined
        ? undefined
        : this.#statement(
            "SELECT id, user_id, key_hash, is_admin FROM api_keys WHERE lookup = ? AND revoked_at IS NULL",
          ).get(match[1]);
    const stored = row?.["key_hash"];
    // Compare even when there is no row, so a miss costs about what a hit costs.
    const expected = stored instanceof Uint8Array && stored.length === 32 ? stored : DUMMY_HASH;
    const equal = timingSafeEqual(hashKey(key), expected);
    return equal && row !== undefined && expected !== DUMMY_HASH ? row : undefined;
  }

  revokeApiKey(key: string, now: string): boolean {
    const row = this.#liveKey(key);
    if (row === undefined) return false;
    this.#statement("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(now, int(row, "id"));
    return true;
  }

  authenticate(key: string): Principal | undefined {
    const row = this.#liveKey(key);
    return row === undefined
      ? undefined
      : { userId: int(row, "user_id"), keyId: int(row, "id"), isAdmin: int(row, "is_admin") === 1 };
  }

  createHandler(userId: number, data: HandlerData, now: string): HandlerRecord {
    const row = this.#statement(
      `INSERT INTO notification_handlers
         (user_id, type, name, settings, is_enabled, last_datetime, datetime, email_activation_code)
       VALUES (?, ?, ?, ?, ?, NULL, ?, ?) RETURNING *`,
    ).get(
      userId,
      data.type,
      data.name,
      JSON.stringify(data.settings),
      data.isEnabled ? 1 : 0,
      now,
      data.activationCode ?? null,
    );
    if (row === undefined) throw new Error("insert returned no row");
    return toRecord(row);
  }

  getHandler(userId: number, id: number): HandlerRecord | undefined {
    const row = this.#statement("SELECT * FROM notification_handlers WHERE id = ? AND user_id = ?").get(
      id,
      userId,
    );
    return row === undefined ? undefined : toRecord(row);
  }

  updateHandler(userId: number, id: number, data: HandlerData, now: string): HandlerRecord | undefined {
    // An absent activation code leaves the stored one as it is; null clears it.
    const keepCode = data.activationCode === undefined;
    const row = this.#statement(
      `UPDATE notification_handlers SET type = ?, name = ?, settings = ?, is_enabled = ?, last_datetime = ?,
         email_activation_code = CASE WHEN ? THEN email_activation_code ELSE ? END
       WHERE id = ? AND user_id = ? RETURNING *`,
    ).get(
      data.type,
      data.name,
      JSON.stringify(data.settings),
      data.isEnabled ? 1 : 0,
      now,
      keepCode ? 1 : 0,
      data.activationCode ?? null,
      id,
      userId,
    );
    return row === undefined ? undefined : toRecord(row);
  }

  deleteHandler(userId: number, id: number): boolean {
    const result = this.#statement("DELETE FROM notification_handlers WHERE id = ? AND user_id = ?").run(
      id,
      userId,
    );
    return Number(result.changes) > 0;
  }

  listHandlers(userId: number, filter: HandlerListFilter, limit: number, offset: number): HandlerListResult {
    const where = ["user_id = ?"];
    const params: SQLInputValue[] = [userId];
    if (filter.search !== undefined && filter.search !== "") {
      // instr() rather than LIKE: `%`, `_` and `\` in a search are plain characters, no escaping needed.
      where.push("instr(nh_fold(name), ?) > 0");
      params.push(fold(filter.search));
    }
    if (filter.isEnabled !== undefined) {
      where.push("is_enabled = ?");
      params.push(filter.isEnabled ? 1 : 0);
    }
    if (filter.type !== undefined) {
      where.push("type = ?");
      params.push(filter.type);
    }
    // The column name comes from a closed union, never from the request text.
    const column = filter.datetimeField === "last_datetime" ? "last_datetime" : "datetime";
    if (filter.datetimeStart !== undefined) {
      where.push(`${column} >= ?`); // `Y-m-d H:i:s` strings sort like the times they name
      params.push(filter.datetimeStart);
    }
    if (filter.datetimeEnd !== undefined) {
      where.push(`${column} <= ?`);
      params.push(filter.datetimeEnd);
    }
    const whereSql = where.join(" AND ");
    const countRow = this.#statement(
      `SELECT count(*) AS total FROM notification_handlers WHERE ${whereSql}`,
    ).get(...params);
    const total = countRow === undefined ? 0 : int(countRow, "total");
    if (offset >= total || limit <= 0) return { records: [], total };
    const direction = filter.orderType === "ASC" ? "ASC" : "DESC";
    // Ties on the order column are broken by id in the same direction, so pages never overlap.
    const rows = this.#statement(
      `SELECT * FROM notification_handlers WHERE ${whereSql}
       ORDER BY ${ORDER_COLUMNS[filter.orderBy]} ${direction}, id ${direction} LIMIT ? OFFSET ?`,
    ).all(...params, limit, offset);
    return { records: rows.map(toRecord), total };
  }

  ping(): void {
    // Reads a real table, not just `SELECT 1`, so a file that went missing or corrupt is noticed.
    this.#statement("SELECT version FROM schema_version LIMIT 1").get();
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

/** Opens (creating and migrating if needed) the database at `path`; `:memory:` keeps nothing. */
export function openRepository(path: string): Repository {
  return new SqliteRepository(path);
}
