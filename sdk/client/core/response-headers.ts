/**
 * An answer's headers as the client keeps them, and how long they ask it to wait: `Retry-After` and
 * `X-RateLimit-Reset`, as the reference server and deployed instances send them
 * (docs/api.md#rate-limit-headers).
 */

/** Response headers with lower-case names; `authorization` and cookies are never kept. */
export type ResponseHeaders = Record<string, string>;

/** Seconds to wait from `Retry-After` (seconds or an HTTP date) or `X-RateLimit-Reset` (seconds), the larger. */
export function retryAfterSeconds(headers: ResponseHeaders, nowMs: number = Date.now()): number | undefined {
  const candidates: number[] = [];
  const retryAfter = headers["retry-after"]?.trim();
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) candidates.push(seconds);
    else {
      const date = Date.parse(retryAfter);
      if (!Number.isNaN(date)) candidates.push(Math.max(0, (date - nowMs) / 1000));
    }
  }
  const reset = resetSeconds(headers["x-ratelimit-reset"], nowMs);
  if (reset !== undefined) candidates.push(reset);
  return candidates.length > 0 ? Math.max(...candidates) : undefined;
}

/**
 * Reads `X-RateLimit-Reset`: seconds until the window resets (the reference server and deployed
 * instances alike: docs/api.md#rate-limit-headers, docs/api.md#deployed-rate-limit), or, as some
 * servers send, an epoch timestamp in seconds (told apart by size).
 */
export function resetSeconds(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  if (!Number.isFinite(n) || n < 0 || value.trim() === "") return undefined;
  if (n > 1_000_000_000) return Math.max(0, n - nowMs / 1000);
  return n;
}
