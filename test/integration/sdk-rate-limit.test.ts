/**
 * Rate-limit pacing against a scripted server with a fixed-window limiter (60 a minute, as on every
 * server: docs/api.md#rate-limit) that reads the same virtual clock as the client: nothing really waits.
 */

import { describe, expect, it, onTestFinished } from "vitest";
import { NotificationHandlersClient, RateLimitError } from "../../sdk/client";
import {
  apiError,
  handler,
  json,
  scheduledClock,
  scriptedServerForTest,
  virtualClock,
  type VirtualClock,
} from "../support/servers/scripted-server";

interface LimiterOptions {
  limit: number;
  windowMs: number;
  /** Deployed style: a 429 carries X-RateLimit-Reset and no Remaining or Retry-After. */
  deployed?: boolean;
  /** No rate-limit headers at all (administrator keys). */
  admin?: boolean;
  /** Requests already spent in the current window by someone else with the same key. */
  spent?: number;
}

/** A fixed window that opens at the first request after the previous one ended. */
async function limitedServer(clock: VirtualClock, options: LimiterOptions) {
  let windowStart: number | undefined;
  let count = options.spent ?? 0;
  if (count > 0) windowStart = clock.now();
  let rejected = 0;
  const server = await scriptedServerForTest((_call, res) => {
    const now = clock.now();
    if (options.admin) return json(res, 200, { data: handler(1) });
    if (windowStart === undefined || now - windowStart >= options.windowMs) {
      windowStart = now;
      count = 0;
    }
    const limit = String(options.limit);
    if (count >= options.limit) {
      rejected++;
      const reset = String(Math.ceil((windowStart + options.windowMs - now) / 1000));
      const headers: Record<string, string> = options.deployed
        ? { "x-ratelimit-limit": limit, "x-ratelimit-reset": reset }
        : {
            "x-ratelimit-limit": limit,
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": reset,
            "retry-after": reset,
          };
      return apiError(res, 429, "You reached the limit of requests in one minute, please wait.", { headers });
    }
    count++;
    json(
      res,
      200,
      { data: handler(1) },
      {
        "x-ratelimit-limit": limit,
        "x-ratelimit-remaining": String(options.limit - count),
      },
    );
  });
  return { server, rejected: () => rejected };
}

function clientFor(url: string, clock: VirtualClock, maxRetries = 2): NotificationHandlersClient {
  const client = new NotificationHandlersClient({
    baseURL: url,
    apiKey: "k-rate",
    sleep: clock.sleep,
    now: clock.now,
    maxRetries,
  });
  onTestFinished(() => client.close());
  return client;
}

describe("rate-limit pacing", () => {
  it("200 sequential calls against 60/min all succeed, and the server never answers 429", async () => {
    const clock = virtualClock();
    const start = clock.now();
    const { server, rejected } = await limitedServer(clock, { limit: 60, windowMs: 60_000 });
    // No retries at all: any 429 would reach the caller.
    const client = clientFor(server.url, clock, 0);
    for (let i = 0; i < 200; i++) await client.notificationHandlers.retrieve(1);
    expect(rejected()).toBe(0);
    expect(server.calls).toHaveLength(200);
    expect(client.stats).toMatchObject({ requests: 200, retries: 0, rateLimited: 0 });
    // Three waits for a new window (after calls 60, 120, 180), each 60 s plus the 1 s margin.
    expect(client.stats.pacedMs).toBe(3 * 61_000);
    expect(clock.now() - start).toBe(3 * 61_000);
  });

  it("200 concurrent calls against 60/min all succeed with no 429", async () => {
    const holder: { client?: NotificationHandlersClient } = {};
    const clock = scheduledClock(() => holder.client?.rateLimitState().inFlight === 0);
    const start = clock.now();
    const { server, rejected } = await limitedServer(clock, { limit: 60, windowMs: 60_000 });
    const client = clientFor(server.url, clock, 0);
    holder.client = client;
    const results = await Promise.all(
      Array.from({ length: 200 }, () => client.notificationHandlers.retrieve(1)),
    );
    expect(results).toHaveLength(200);
    expect(rejected()).toBe(0);
    expect(client.stats.rateLimited).toBe(0);
    expect(server.calls).toHaveLength(200);
    // Four windows: 60 + 60 + 60 + 20 calls.
    expect(clock.now() - start).toBe(3 * 61_000);
  });

  it("against a deployed-style limiter (429 with Reset, no Remaining), a spent window is waited out", async () => {
    const clock = virtualClock();
    const start = clock.now();
    // Another program used the whole window just before: the first call gets a 429.
    const { server, rejected } = await limitedServer(clock, {
      limit: 60,
      windowMs: 60_000,
      deployed: true,
      spent: 60,
    });
    const client = clientFor(server.url, clock);
    for (let i = 0; i < 70; i++) await client.notificationHandlers.retrieve(1);
    expect(rejected()).toBe(1);
    expect(client.stats.rateLimited).toBe(1);
    expect(client.stats.retries).toBe(1);
    // 60 s (Reset) + 1 s margin, then 60 calls, then one more window for the last 10.
    expect(clock.now() - start).toBe(61_000 + 61_000);
  });

  it("a 429 with retries off reaches the caller as RateLimitError", async () => {
    const clock = virtualClock();
    const { server } = await limitedServer(clock, { limit: 60, windowMs: 60_000, spent: 60 });
    const client = clientFor(server.url, clock, 0);
    const err = await client.notificationHandlers.retrieve(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(60);
  });

  it("administrator keys (no rate-limit headers) are not paced", async () => {
    const clock = virtualClock();
    const { server } = await limitedServer(clock, { limit: 60, windowMs: 60_000, admin: true });
    const client = clientFor(server.url, clock);
    await Promise.all(Array.from({ length: 150 }, () => client.notificationHandlers.retrieve(1)));
    expect(client.stats.pacedMs).toBe(0);
    expect(clock.sleeps).toEqual([]);
    expect(client.rateLimitState().limit).toBeUndefined();
  });

  it("a small limit is paced the same way (5 per 10 s window)", async () => {
    const clock = virtualClock();
    const { server, rejected } = await limitedServer(clock, { limit: 5, windowMs: 10_000 });
    const client = new NotificationHandlersClient({
      baseURL: server.url,
      apiKey: "k-rate",
      sleep: clock.sleep,
      now: clock.now,
      maxRetries: 0,
      rateLimitWindowMs: 10_000,
    });
    onTestFinished(() => client.close());
    for (let i = 0; i < 23; i++) await client.notificationHandlers.retrieve(1);
    expect(rejected()).toBe(0);
    expect(client.stats.pacedMs).toBe(4 * 11_000);
  });
});
