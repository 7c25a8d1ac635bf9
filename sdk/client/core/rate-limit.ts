/**
 * Client-side pacing against the API's fixed-window rate limit (60 requests a minute per key in both
 * the reference server and deployed instances), so callers never see a 429 in normal use.
 *
 * The server tells the limit and what is left (`X-RateLimit-Limit`, `X-RateLimit-Remaining`) on
 * every answer but says when the window resets only on a 429. So the pacer estimates the reset
 * conservatively: a window is taken to start when the first answer of a fresh window arrives (which
 * is after the server opened it), and to end `windowMs + safetyMs` later. When the local budget
 * reaches 0 it waits for that moment. An answer without rate-limit headers (administrator keys)
 * means no limit. The client drives it; nothing else uses it.
 */

import { type ResponseHeaders, resetSeconds, retryAfterSeconds } from "./response-headers";
import { SETTINGS } from "../domain/settings";

/** The rate-limit window of every deployed site and of the reference server. */
export const RATE_LIMIT_WINDOW_MS = SETTINGS.rateLimitWindowMs.default;

/** What the pacer needs from its owner. */
interface PacerOptions {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Length of the server's window when it does not say (60 s everywhere: docs/api.md#rate-limit). */
  windowMs: number;
  /** Margin added to every estimated reset: servers count whole seconds and may compare with `>`. */
  safetyMs: number;
}

/** What the pacer currently believes (for logs and tests). */
export interface PacerState {
  limit: number | undefined;
  budget: number | undefined;
  resetAt: number | undefined;
  inFlight: number;
}

function intHeader(headers: ResponseHeaders, name: string): number | undefined {
  const raw = headers[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Paces requests by the limits the server reports. */
export class RateLimitPacer {
  private limit: number | undefined;
  /** Requests this client may still start in the current window, by its own count. */
  private budget: number | undefined;
  private resetAt: number | undefined;
  private lastRemaining: number | undefined;
  /**
   * Whether the limit is only inferred from a 429 that did not say how large it is (a proxy or a
   * server with no rate-limit headers): then the 429 is a pause until its reset, not a window of one.
   */
  private pauseOnly = false;
  /** Whether any answer has been seen: until then only one request goes out, to learn the limit. */
  private known = false;
  private probing = false;
  private probeWaiters: (() => void)[] = [];
  private inFlight = 0;

  constructor(private readonly options: PacerOptions) {}

  /** Current beliefs. */
  state(): PacerState {
    return { limit: this.limit, budget: this.budget, resetAt: this.resetAt, inFlight: this.inFlight };
  }

  /**
   * Counts a request as in flight if it may be sent now, without waiting; false when it must wait
   * (for the first answer, or for the window). The client calls this first, so the usual request
   * costs no promise; `acquire()` is the waiting form.
   */
  tryAcquire(): boolean {
    if (!this.known) {
      // Concurrent first calls would all go out before any answer told the limit.
      if (this.probing) return false;
      this.probing = true;
      this.inFlight++;
      return true;
    }
    if (this.limit === undefined) {
      this.inFlight++;
      return true;
    }
    const now = this.options.now();
    if (this.pauseOnly && this.resetAt !== undefined && now >= this.resetAt) {
      // The pause a limitless 429 asked for is over: back to no pacing until a header says otherwise.
      this.pauseOnly = false;
      this.limit = undefined;
      this.budget = undefined;
      this.resetAt = undefined;
      this.lastRemaining = undefined;
      this.inFlight++;
      return true;
    }
    if (this.resetAt !== undefined && now >= this.resetAt) {
      // The window has ended by our (late-leaning) estimate; the next answer tells when the new one began.
      // Requests still in flight may land in the new window (a slow server): count them against it.
      this.budget = Math.max(0, this.limit - this.inFlight);
      this.resetAt = now + this.options.windowMs + this.options.safetyMs;
      this.lastRemaining = undefined;
    }
    if (this.budget === undefined || this.budget > 0) {
      if (this.budget !== undefined) this.budget--;
      this.inFlight++;
      return true;
    }
    return false;
  }

  /** Waits until a request may be sent, and counts it as in flight; resolves to the milliseconds waited. */
  async acquire(): Promise<number> {
    let waited = 0;
    while (!this.tryAcquire()) {
      if (!this.known) {
        await new Promise<void>((resolve) => this.probeWaiters.push(resolve));
        continue;
      }
      const now = this.options.now();
      const target = this.resetAt ?? now + this.options.windowMs;
      const wait = Math.max(1, target - now);
      await this.options.sleep(wait);
      waited += wait;
      // Trust the sleep over the clock: a clock that did not move (an injected sleep without an
      // injected clock) must not make this loop spin.
      if (this.options.now() < target && this.resetAt === target) this.resetAt = this.options.now();
    }
    return waited;
  }

  /** Marks a request acquired with `acquire()` as finished (after `observe`, if it got an answer). */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.probing) {
      this.probing = false;
      const waiters = this.probeWaiters;
      this.probeWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** Learns from an answer's headers; `receivedAt` is the local clock when it arrived. */
  observe(status: number, headers: ResponseHeaders, receivedAt: number): void {
    const limit = intHeader(headers, "x-ratelimit-limit");
    const remaining = intHeader(headers, "x-ratelimit-remaining");
    const { windowMs, safetyMs } = this.options;

    if (status === 429) {
      this.known = true;
      if (limit !== undefined) this.limit = limit;
      // A deployed 429 carries X-RateLimit-Reset and no Remaining (docs/api.md#deployed-rate-limit); the
      // reference adds Retry-After (docs/api.md#rate-limit-headers).
      const after = retryAfterSeconds(headers, receivedAt);
      if (after !== undefined) {
        this.resetAt = receivedAt + after * 1000 + safetyMs;
        this.budget = 0;
        this.lastRemaining = 0;
        if (this.limit === undefined) {
          // A limit exists, but the server never said how large: pause until the reset, no longer.
          this.limit = 1;
          this.pauseOnly = true;
        }
      }
      return;
    }

    if (limit === undefined && remaining === undefined) {
      // Administrator keys get no rate-limit headers and no limit. Error answers may come from a layer
      // before the limiter (authentication), so only a success is taken as "no limit".
      if (status < 300) {
        this.known = true;
        this.limit = undefined;
        this.budget = undefined;
        this.resetAt = undefined;
        this.lastRemaining = undefined;
      }
      return;
    }

    this.known = true;
    if (limit !== undefined) {
      this.limit = limit;
      this.pauseOnly = false;
    }
    if (remaining === undefined) return;
    const fresh =
      (this.limit !== undefined && remaining >= this.limit - 1) ||
      (this.lastRemaining !== undefined && remaining > this.lastRemaining);
    const reset = resetSeconds(headers["x-ratelimit-reset"], receivedAt);
    if (reset !== undefined) this.resetAt = receivedAt + reset * 1000 + safetyMs;
    else if (fresh || this.resetAt === undefined) this.resetAt = receivedAt + windowMs + safetyMs;
    // Requests still in flight may or may not be counted in `remaining`: assume they are not.
    const estimate = Math.max(0, remaining - Math.max(0, this.inFlight - 1));
    this.budget = fresh || this.budget === undefined ? estimate : Math.min(this.budget, estimate);
    this.lastRemaining = remaining;
  }
}
