/** The per-key request limit: a fixed window that opens at a key's first request. */
import type { Clock } from "./clock";

/** The length of a window. */
export const RATE_LIMIT_WINDOW_MS = 60_000; // 60 s

/** What one request left of its key's window. */
export interface RateLimitState {
  /** Whether the request fits in the window. */
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in the window after this one. */
  readonly remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  readonly resetSeconds: number;
}

interface Window {
  start: number;
  count: number;
}

/** Counts requests per key in fixed windows. Kept in memory: a restart forgives everyone. */
export class RateLimiter {
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
    return {
      allowed: window.count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000)),
    };
  }

  /** Forgets expired windows once many keys have been seen, so memory stays bounded. */
  #prune(now: number): void {
    if (this.#windows.size < 10_000) return;
    for (const [key, window] of this.#windows) {
      if (now >= window.start + this.windowMs) this.#windows.delete(key);
    }
  }
}
