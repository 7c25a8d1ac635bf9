/**
 * The client's pacing by the rate limit it learns from answers' headers: the first request at once,
 * then paced; a 429 waited out by X-RateLimit-Reset or Retry-After; no limit for administrator keys;
 * requests in flight counted. On a clock of the test's, so nothing waits.
 */
import { describe, expect, it } from "vitest";
import { RateLimitPacer } from "../../sdk/client/core/rate-limit";

function setup(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  const pacer = new RateLimitPacer({
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      const target = now + ms;
      await Promise.resolve();
      if (target > now) now = target;
    },
    windowMs: 60_000,
    safetyMs: 1_000,
  });
  return { pacer, sleeps, now: () => now, advance: (ms: number) => (now += ms) };
}

const headers = (limit: number, remaining: number) => ({
  "x-ratelimit-limit": String(limit),
  "x-ratelimit-remaining": String(remaining),
});

describe("RateLimitPacer", () => {
  it("sends one request first, then paces by the limit it learnt", async () => {
    const { pacer, sleeps, now } = setup();
    const start = now();
    await pacer.acquire();
    // A second caller waits for the first answer, without sleeping.
    let secondStarted = false;
    const second = pacer.acquire().then(() => (secondStarted = true));
    await Promise.resolve();
    expect(secondStarted).toBe(false);
    pacer.observe(200, headers(3, 2), now());
    pacer.release();
    await second;
    pacer.observe(200, headers(3, 1), now());
    pacer.release();
    await pacer.acquire();
    pacer.observe(200, headers(3, 0), now());
    pacer.release();
    expect(sleeps).toEqual([]);
    // The budget is spent: the next acquire waits for the window (60 s + 1 s margin from the first answer).
    const waited = await pacer.acquire();
    expect(waited).toBe(61_000);
    expect(now() - start).toBe(61_000);
  });

  it("learns 'no limit' from a success without rate-limit headers (administrator keys)", async () => {
    const { pacer, sleeps } = setup();
    await pacer.acquire();
    pacer.observe(200, {}, 0);
    pacer.release();
    await Promise.all(Array.from({ length: 500 }, () => pacer.acquire()));
    expect(sleeps).toEqual([]);
    expect(pacer.state().limit).toBeUndefined();
  });

  it("ignores an error answer without headers (it may come from before the limiter)", async () => {
    const { pacer } = setup();
    await pacer.acquire();
    pacer.observe(200, headers(60, 59), 0);
    pacer.release();
    pacer.observe(401, {}, 0);
    expect(pacer.state().limit).toBe(60);
  });

  it("after a 429, waits for X-RateLimit-Reset (no Remaining, as deployed instances send)", async () => {
    const { pacer, now } = setup();
    const start = now();
    await pacer.acquire();
    pacer.observe(429, { "x-ratelimit-limit": "60", "x-ratelimit-reset": "17" }, now());
    pacer.release();
    const waited = await pacer.acquire();
    expect(waited).toBe(18_000);
    expect(now() - start).toBe(18_000);
  });

  it("honours Retry-After on a 429 when it is longer", async () => {
    const { pacer } = setup();
    await pacer.acquire();
    pacer.observe(429, { "retry-after": "30", "x-ratelimit-reset": "5" }, 1_000_000);
    pacer.release();
    expect(await pacer.acquire()).toBe(31_000);
  });

  it("a 429 that never says the limit (a proxy's) pauses until its reset, then stops pacing", async () => {
    const { pacer, now } = setup();
    await pacer.acquire();
    pacer.observe(200, {}, now()); // no rate-limit headers: no limit
    pacer.release();
    // Requests in flight when the 429 comes must not turn it into a window of one request a minute.
    await pacer.acquire();
    await pacer.acquire();
    pacer.observe(429, { "retry-after": "1" }, now());
    pacer.release();
    expect(await pacer.acquire()).toBe(2_000);
    for (let i = 0; i < 10; i++) expect(pacer.tryAcquire()).toBe(true);
    expect(pacer.state()).toMatchObject({ limit: undefined, resetAt: undefined });
  });

  it("sees a new window when Remaining goes up, and restarts its estimate from there", async () => {
    const { pacer, advance, now } = setup();
    await pacer.acquire();
    pacer.observe(200, headers(60, 10), now());
    pacer.release();
    advance(5_000);
    await pacer.acquire();
    pacer.observe(200, headers(60, 40), now()); // the server's window rolled over earlier than we knew
    pacer.release();
    expect(pacer.state().budget).toBe(40);
    expect(pacer.state().resetAt).toBe(now() + 61_000);
  });

  it("counts requests in flight against what the server reports", async () => {
    const { pacer, now } = setup();
    await pacer.acquire();
    pacer.observe(200, headers(10, 9), now());
    pacer.release();
    for (let i = 0; i < 5; i++) await pacer.acquire();
    // One of the five answers: the other four are still in flight and may not be counted yet.
    pacer.observe(200, headers(10, 8), now());
    pacer.release();
    expect(pacer.state().budget).toBe(4);
  });

  it("reads an X-RateLimit-Reset sent on a success", async () => {
    const { pacer, now } = setup();
    await pacer.acquire();
    pacer.observe(200, { ...headers(2, 0), "x-ratelimit-reset": "9" }, now());
    pacer.release();
    expect(await pacer.acquire()).toBe(10_000);
  });

  it("tryAcquire() lets a request go at once when no wait is needed, and never waits itself", () => {
    const { pacer, now } = setup();
    expect(pacer.tryAcquire()).toBe(true); // the first request, which learns the limit
    expect(pacer.tryAcquire()).toBe(false); // others wait for its answer
    pacer.observe(200, headers(2, 1), now());
    pacer.release();
    expect(pacer.tryAcquire()).toBe(true);
    pacer.observe(200, headers(2, 0), now());
    pacer.release();
    expect(pacer.tryAcquire()).toBe(false); // the budget is spent: acquire() would sleep
    expect(pacer.state().inFlight).toBe(0);
  });

  it("does not spin when the injected sleep does not move the clock", async () => {
    let sleeps = 0;
    const pacer = new RateLimitPacer({
      now: () => 5_000,
      sleep: () => {
        sleeps++;
        return Promise.resolve();
      },
      windowMs: 60_000,
      safetyMs: 1_000,
    });
    await pacer.acquire();
    pacer.observe(200, headers(1, 0), 5_000);
    pacer.release();
    expect(await pacer.acquire()).toBe(61_000);
    expect(sleeps).toBe(1);
  });
});
