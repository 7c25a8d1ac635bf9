/**
 * What a request limiter is, for the stores that provide one and the code that counts with it: the
 * limiter's interface, what one request leaves of its key's window, and how a request is charged.
 */

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

/** Counts requests per key; `hit` may go to the database. */
export interface RequestLimiter {
  readonly limit: number;
  /** Counts one request of `key` and says whether it may proceed. */
  hit(key: string): RateLimitState | Promise<RateLimitState>;
}

/** How an authenticated request is counted: by which limiter, and whether admin keys are left out. */
export interface KeyCharge {
  readonly limiter: RequestLimiter;
  /** Administrator keys are neither counted nor limited when emulating (docs/api.md#deployed-admin-keys). */
  readonly adminsUnlimited: boolean;
}
