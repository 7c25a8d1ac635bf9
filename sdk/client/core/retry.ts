/**
 * The retry policy, in one place: which failures may be retried for which kind of request, and how
 * long to wait before the next attempt (exponential backoff with jitter; `Retry-After` is read by the
 * transport and honoured up to `MAX_HONOURED_RETRY_AFTER_MS`).
 */

import type { RetryMode } from "./api-request";

/** A longer `Retry-After` is reported as the error, not slept through. */
export const MAX_HONOURED_RETRY_AFTER_MS = 300_000; // 5 min
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Whether a transport error certainly happened before any byte of the request was written. */
export function certainlyNotSent(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (NOT_SENT_CODES.has(code) || code.startsWith("ERR_TLS_"))) return true;
  // Happy-eyeballs connects fail with an AggregateError of one error per address.
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.every(certainlyNotSent);
  return false;
}

/**
 * Whether a request that failed on the connection may be sent again: an idempotent one always, a
 * create only when it certainly did not reach the server.
 */
export function mayRetryConnectionError(mode: RetryMode, notSent: boolean): boolean {
  return mode === "idempotent" || notSent;
}

/**
 * Whether an error status may be retried: a 429 is refused before anything happens, so it is safe
 * for every request; a create answered 5xx may have been stored before the failure, so only
 * idempotent requests retry a 5xx.
 */
export function mayRetryStatus(status: number, mode: RetryMode): boolean {
  const retryable = status === 429 || status >= 500;
  const allowed = mode === "idempotent" || status === 429;
  return retryable && allowed;
}

/** The wait before retry number `retry + 1`: exponential, capped, less up to a quarter of jitter. */
export function backoffDelay(retry: number, random: () => number): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.round(base * (1 - 0.25 * random()));
}
