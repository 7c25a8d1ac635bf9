/**
 * The SQLite store (node:sqlite), the embedded default: one file, WAL, `synchronous=FULL`, schema
 * versions applied on open. Its methods do their work synchronously before answering, so a read and
 * the write that follows it (an update) see no other request in between.
 */
/* eslint-disable @typescript-eslint/require-await -- node:sqlite is synchronous; the methods are async
   to keep the Repository's contract, a throw included (it becomes a rejection). */
import { DatabaseSync, type SQLInputValue, type SQLOutputValue, type StatementSync } from "node:sqlite";
import type { Clock } from "./clock";
import type { KeyCharge, RequestLimiter } from "./limiter";
import { RateLimiter, chargeKey } from "./rate-limit";
import {
  fold,
  handlerFromRow,
  hashKey,
  intColumn as int,
  keyLookup,
  keyMatches,
  newApiKey,
  textColumn,
} from "./records";
import type {
  Admission,
  ApiKeyOptions,
  HandlerChange,
  HandlerData,
  HandlerListFilter,
  HandlerListResult,
  HandlerRecord,
  Principal,
  Repository,
} from "./repository";
import type { ListOrderBy } from "#shared";

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

const ORDER_COLUMNS: Record<ListOrderBy, string> = {
  notification_handler_id: "id",
  datetime: "datetime",
  last_datetime: "last_datetime",
  name: "nh_fold(name)",
};

type Row = Record<string, SQLOutputValue>;

function toRecord(row: Row): HandlerRecord {
  return handlerFromRow(row, textColumn(row, "name"), int(row, "is_enabled") === 1);
}

class SqliteRepository implements Repository {
  readonly kind = "sqlite";
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

  async ensureUser(name: string, now: string): Promise<number> {
    this.#statement("INSERT OR IGNORE INTO users (name, created_at) VALUES (?, ?)").run(name, now);
    const row = this.#statement("SELECT id FROM users WHERE name = ?").get(name);
    if (row === undefined) throw new Error(`user ${name} vanished`);
    return int(row, "id");
  }

  async createApiKey(userId: number, now: string, options: ApiKeyOptions = {}): Promise<string> {
    const { key, lookup } = newApiKey();
    this.#statement(
      "INSERT INTO api_keys (user_id, lookup, key_hash, created_at, is_admin) VALUES (?, ?, ?, ?, ?)",
    ).run(userId, lookup, hashKey(key), now, options.admin === true ? 1 : 0);
    return key;
  }

  #liveKey(key: string): Row | undefined {
    const lookup = keyLookup(key);
    const row =
      lookup === undefined
        ? undefined
        : this.#statement(
            "SELECT id, user_id, key_hash, is_admin FROM api_keys WHERE lookup = ? AND revoked_at IS NULL",
          ).get(lookup);
    const stored = row?.["key_hash"];
    return keyMatches(key, stored instanceof Uint8Array ? stored : undefined) ? row : undefined;
  }

  async revokeApiKey(key: string, now: string): Promise<boolean> {
    const row = this.#liveKey(key);
    if (row === undefined) return false;
    this.#statement("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(now, int(row, "id"));
    return true;
  }

  async authenticate(key: string): Promise<Principal | undefined> {
    const row = this.#liveKey(key);
    return row === undefined
      ? undefined
      : { userId: int(row, "user_id"), keyId: int(row, "id"), isAdmin: int(row, "is_admin") === 1 };
  }

  async admit(key: string, charge: KeyCharge | undefined): Promise<Admission | undefined> {
    // In the process, authenticating then counting costs no more than one step would.
    const principal = await this.authenticate(key);
    return principal === undefined ? undefined : { principal, rateLimit: await chargeKey(principal, charge) };
  }

  async createHandler(userId: number, data: HandlerData, now: string): Promise<HandlerRecord> {
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

  async getHandler(userId: number, id: number): Promise<HandlerRecord | undefined> {
    return this.#getHandler(userId, id);
  }

  #getHandler(userId: number, id: number): HandlerRecord | undefined {
    const row = this.#statement("SELECT * FROM notification_handlers WHERE id = ? AND user_id = ?").get(
      id,
      userId,
    );
    return row === undefined ? undefined : toRecord(row);
  }

  async updateHandler(
    userId: number,
    id: number,
    change: HandlerChange,
    now: string,
  ): Promise<HandlerRecord | undefined> {
    // Nothing awaits in here, and the transaction keeps another process (`keys create`) out.
    return this.#transaction(() => {
      const current = this.#getHandler(userId, id);
      if (current === undefined) return undefined;
      const data = change(current);
      return data === undefined ? current : this.#update(userId, id, data, now);
    });
  }

  #update(userId: number, id: number, data: HandlerData, now: string): HandlerRecord | undefined {
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

  async deleteHandler(userId: number, id: number): Promise<HandlerRecord | undefined> {
    const row = this.#statement(
      "DELETE FROM notification_handlers WHERE id = ? AND user_id = ? RETURNING *",
    ).get(id, userId);
    return row === undefined ? undefined : toRecord(row);
  }

  async listHandlers(
    userId: number,
    filter: HandlerListFilter,
    limit: number,
    offset: number,
  ): Promise<HandlerListResult> {
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

  rateLimiter(limit: number, now: Clock, windowMs?: number): RequestLimiter {
    return new RateLimiter(limit, now, windowMs);
  }

  async ping(): Promise<void> {
    // Reads a real table, not just `SELECT 1`, so a file that went missing or corrupt is noticed.
    this.#statement("SELECT version FROM schema_version LIMIT 1").get();
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

/** Opens (creating and migrating if needed) the SQLite file at `path`; `:memory:` keeps nothing. */
export function openSqliteRepository(path: string): Repository {
  return new SqliteRepository(path);
}
