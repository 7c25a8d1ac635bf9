/**
 * The per-key request limit: a fixed window that opens at a key's first request. The store decides
 * where the windows live: in memory for SQLite (one process), in the database for PostgreSQL, so
 * every instance on one database counts against one budget per key.
 */
import type { Clock } from "./clock";
import type { KeyCharge, RateLimitState, RequestLimiter } from "./limiter";
import { RATE_LIMIT_WINDOW_MS } from "#shared";
import type { Principal } from "./repository";

/** The limiter's name for a key's window: its id as decimal text (PostgreSQL's `id::text` alike). */
function windowKey(keyId: number): string {
  return String(keyId);
}

/** Counts a request of `principal` as `charge` says; undefined when it is not counted. */
export async function chargeKey(
  principal: Principal,
  charge: KeyCharge | undefined,
): Promise<RateLimitState | undefined> {
  if (charge === undefined || (charge.adminsUnlimited && principal.isAdmin)) return undefined;
  return charge.limiter.hit(windowKey(principal.keyId));
}

/** The state of a window that opened at `start` (ms) and has counted `count` requests at `now`. */
export function windowState(
  limit: number,
  start: number,
  count: number,
  now: number,
  windowMs: number,
): RateLimitState {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
  };
}

interface Window {
  start: number;
  count: number;
}

/** Counts requests per key in fixed windows. Kept in memory: a restart forgives everyone. */
export class RateLimiter implements RequestLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    private readonly now: Clock,
    private readonly windowMs: number = RATE_LIMIT_WINDOW_MS,
  ) {}

  /** Counts one request of `key` and says whether it may proceed. */
  hit(key: string): RateLimitState {
    const now = this.now();
    let window = this.#windows.get(key);
    if (window === undefined || now >= window.start + this.windowMs) {
      if (window === undefined) this.#prune(now);
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count++;
    return windowState(this.limit, window.start, window.count, now, this.windowMs);
  }

  /** Forgets expired windows once many keys have been seen, so memory stays bounded. */
  #prune(now: number): void {
    if (this.#windows.size < 10_000) return;
    for (const [key, window] of this.#windows) {
      if (now >= window.start + this.windowMs) this.#windows.delete(key);
    }
  }
}
