/**
 * `--emulate`: the rate limit of deployed instances, pinned to the items of docs/api.md#deployed ("Rate
 * limit") it reproduces. Driven by `inject` and an injected clock: nothing waits for a real minute.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { type EmulatedVersion, buildApp, type Repository } from "../../server";
import { manualClock, openTestRepository } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const VERSIONS = ["2023", "2025", "2026"] as const;
const NOW = "2024-01-01 00:00:00";

let app: FastifyInstance | undefined;
let repository: Repository | undefined;
afterEach(async () => {
  await app?.close();
  await repository?.close();
  app = undefined;
  repository = undefined;
});

/** An emulating app with the default limit (no `rateLimit` option: 60), and two keys of one user. */
async function start(version: EmulatedVersion) {
  const clock = manualClock();
  const store = await openTestRepository();
  repository = store;
  app = buildApp({ repository: store, emulate: version, now: clock.now });
  const user = await store.ensureUser("alice", NOW);
  const key = await store.createApiKey(user, NOW);
  const admin = await store.createApiKey(user, NOW, { admin: true });
  const instance = app;
  const get = (as: string): Promise<LightMyRequestResponse> =>
    instance.inject({ method: "GET", url: PATH, headers: { authorization: `Bearer ${as}` } });
  return { clock, key, admin, get };
}

describe("docs/api.md#deployed-rate-limit: 60 requests a minute per key; X-RateLimit-Remaining 59 after the first; the 61st is a 429 with X-RateLimit-Reset and no Remaining", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { clock, key, get } = await start(version);
    const remaining: string[] = [];
    for (let i = 1; i <= 60; i++) {
      const answer = await get(key);
      expect(answer.statusCode).toBe(200);
      expect(answer.headers["x-ratelimit-limit"]).toBe("60");
      remaining.push(String(answer.headers["x-ratelimit-remaining"]));
    }
    expect(remaining[0]).toBe("59");
    expect(remaining.at(-1)).toBe("0");

    clock.advance(15_000); // 15 s into the window
    const limited = await get(key);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["x-ratelimit-reset"]).toBe("45");
    expect(limited.headers["x-ratelimit-limit"]).toBe("60");
    expect(limited.headers).not.toHaveProperty("x-ratelimit-remaining");
    // Our reading of the same line: no Retry-After either, so a client must read X-RateLimit-Reset.
    expect(limited.headers).not.toHaveProperty("retry-after");
    expect(limited.json()).toEqual({
      errors: [
        {
          title: "You reached the limit of requests in one minute, please wait.",
          status: 429,
          detail: "The limit is 60 requests a minute; retry in 45 s.",
        },
      ],
    });

    clock.advance(45_000); // a fixed window: it resets 60 s after it opened
    const fresh = await get(key);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers["x-ratelimit-remaining"]).toBe("59");
  });
});

describe("docs/api.md#deployed-admin-keys: administrator keys get no rate-limit headers and no limit", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { key, admin, get } = await start(version);
    for (let i = 1; i <= 100; i++) {
      const answer = await get(admin);
      expect(answer.statusCode).toBe(200);
      expect(answer.headers).not.toHaveProperty("x-ratelimit-limit");
      expect(answer.headers).not.toHaveProperty("x-ratelimit-remaining");
    }
    // The ordinary key of the same user still has its own full window.
    expect((await get(key)).headers["x-ratelimit-remaining"]).toBe("59");
  });

  it("without --emulate an administrator key is an ordinary key (the reference knows no administrators)", async () => {
    const clock = manualClock();
    const store = await openTestRepository();
    repository = store;
    app = buildApp({ repository: store, now: clock.now, rateLimit: 2 });
    const admin = await store.createApiKey(await store.ensureUser("root", NOW), NOW, { admin: true });
    const get = () =>
      app?.inject({ method: "GET", url: PATH, headers: { authorization: `Bearer ${admin}` } });
    expect((await get())?.headers["x-ratelimit-remaining"]).toBe("1");
    await get();
    expect((await get())?.statusCode).toBe(429);
  });
});
