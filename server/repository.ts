/**
 * The store behind the service, as an interface: users, their API keys and their notification
 * handlers, and the records, filters and keys it speaks in. Two implementations:
 * `repository-sqlite.ts` (node:sqlite, the embedded default) and `repository-postgres.ts`
 * (PostgreSQL, for several instances on one database), the only files with SQL;
 * `open-repository.ts` picks one for a location. Types only, so anything may import it.
 */
import type { Clock } from "./clock";
import type { KeyCharge, RateLimitState, RequestLimiter } from "./limiter";
import type { ListOrderBy, ListOrderType } from "#shared";

/** A stored notification handler. `settings` holds exactly the fields of its type. */
export interface HandlerRecord {
  readonly id: number;
  readonly userId: number;
  /** Null only after an emulated 2026 update wiped it (docs/api.md#deployed-2026-update-wipes-type). */
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
  readonly orderBy: ListOrderBy;
  readonly orderType: ListOrderType;
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
  /** An administrator key: emulated deployed instances do not limit it (docs/api.md#deployed-admin-keys). */
  readonly isAdmin: boolean;
}

/** A request's key, authenticated, and what its window has left (undefined when not counted). */
export interface Admission {
  readonly principal: Principal;
  readonly rateLimit: RateLimitState | undefined;
}

/** Options of a new API key. */
export interface ApiKeyOptions {
  /** Issue an administrator key. */
  readonly admin?: boolean;
}

/**
 * What an update stores over the current handler, or undefined to store nothing. It may throw (an
 * `ApiError`): then nothing is stored. A store may call it more than once, over newer versions of
 * the handler; only what the last call gave is stored.
 */
export type HandlerChange = (current: HandlerRecord) => HandlerData | undefined;

/** The store the service runs on. Every method answers a promise; PostgreSQL's go over the network. */
export interface Repository {
  /** Which store this is, for logs: `sqlite` or `postgres`. */
  readonly kind: "sqlite" | "postgres";
  /** The id of the user called `name`, created if needed. */
  ensureUser(name: string, now: string): Promise<number>;
  /** Creates a new API key for a user and returns it; only its hash is stored. */
  createApiKey(userId: number, now: string, options?: ApiKeyOptions): Promise<string>;
  /** Marks a key revoked; it stops working at once. Returns whether a live key was revoked. */
  revokeApiKey(key: string, now: string): Promise<boolean>;
  /** The owner of a live key, or undefined for an unknown, malformed or revoked key. */
  authenticate(key: string): Promise<Principal | undefined>;
  /**
   * What every request starts with: `authenticate`, then the request counted as `charge` says, with
   * the same answers as the two in turn (nothing is counted for a refused key), in one trip to the
   * database where the store can. Undefined for a key `authenticate` refuses.
   */
  admit(key: string, charge: KeyCharge | undefined): Promise<Admission | undefined>;
  createHandler(userId: number, data: HandlerData, now: string): Promise<HandlerRecord>;
  /** The user's handler, or undefined when it does not exist or belongs to someone else. */
  getHandler(userId: number, id: number): Promise<HandlerRecord | undefined>;
  /**
   * Reads the user's handler, asks `change` what to store over it and stores that with `now` as its
   * `last_datetime`, atomically: no other write to the handler lands in between, from this process
   * or another. Answers the handler as stored (unchanged when `change` gave undefined), or undefined
   * when it is not the user's. `seen` is the handler as the caller read it from this store
   * (`getHandler`) during the same request, if it did: a store may take it as the read, when nothing
   * has written the handler since.
   */
  updateHandler(
    userId: number,
    id: number,
    change: HandlerChange,
    now: string,
    seen?: HandlerRecord,
  ): Promise<HandlerRecord | undefined>;
  /** Deletes the user's handler and answers it as it was; undefined when it is not the user's. */
  deleteHandler(userId: number, id: number): Promise<HandlerRecord | undefined>;
  /** One page of the user's handlers that match `filter`, and the count of all matches. */
  listHandlers(
    userId: number,
    filter: HandlerListFilter,
    limit: number,
    offset: number,
  ): Promise<HandlerListResult>;
  /**
   * The per-key request limiter of this store: in memory for SQLite (one process serves a file), in
   * the database for PostgreSQL, so all instances on it share one budget per key.
   */
  rateLimiter(limit: number, now: Clock, windowMs?: number): RequestLimiter;
  /** Runs a trivial query; rejects when the database does not answer (closed, unreadable, unreachable). */
  ping(): Promise<void>;
  /** Closes the database; the repository is unusable afterwards. */
  close(): Promise<void>;
}
