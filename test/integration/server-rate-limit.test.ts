/** The per-key rate limit, driven by an injected clock: no test waits for a real minute. */
import { describe, expect, it } from "vitest";
import { buildApp } from "../../server";
import { errorsOf, openTestRepository, serverForTest } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";

function limits(answer: { headers: Headers }): [string | null, string | null] {
  return [answer.headers.get("x-ratelimit-limit"), answer.headers.get("x-ratelimit-remaining")];
}

describe("rate limit", () => {
  it("counts down on every authenticated answer, then answers 429 until the window resets", async () => {
    const { call, clock, key } = await serverForTest({ rateLimit: 5 });
    const mine = await key();
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 5; i++) {
      const answer = await call("GET", PATH, { key: mine });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-ratelimit-limit")).toBe("5");
      remaining.push(answer.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);

    const limited = await call("GET", PATH, { key: mine });
    expect(limited.status).toBe(429);
    expect(errorsOf(limited)).toEqual([
      {
        title: "You reached the limit of requests in one minute, please wait.",
        status: 429,
        detail: "The limit is 5 requests a minute; retry in 60 s.",
      },
    ]);
    expect(limits(limited)).toEqual(["5", "0"]);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("x-ratelimit-reset")).toBe("60");

    clock.advance(45_500); // 45.5 s into the window: 14.5 s left, announced as 15
    const later = await call("POST", PATH, { key: mine, form: { name: "x", type: "internal_notification" } });
    expect(later.status).toBe(429);
    expect(later.headers.get("retry-after")).toBe("15");
    expect(later.headers.get("x-ratelimit-reset")).toBe("15");

    clock.advance(14_500); // the window is over
    const fresh = await call("GET", PATH, { key: mine });
    expect(fresh.status).toBe(200);
    expect(limits(fresh)).toEqual(["5", "4"]);
  });

  it("counts each key on its own", async () => {
    const { call, key } = await serverForTest({ rateLimit: 2 });
    const first = await key("alice");
    const second = await key("alice");
    await call("GET", PATH, { key: first });
    await call("GET", PATH, { key: first });
    expect((await call("GET", PATH, { key: first })).status).toBe(429);
    const other = await call("GET", PATH, { key: second });
    expect(other.status).toBe(200);
    expect(limits(other)).toEqual(["2", "1"]);
  });

  it("counts and labels error answers after authentication, not failed authentication", async () => {
    const { call, key } = await serverForTest({ rateLimit: 5 });
    const mine = await key();
    expect(limits(await call("GET", PATH))).toEqual([null, null]);
    expect(limits(await call("GET", PATH, { key: "wrong" }))).toEqual([null, null]);
    // The key's lookup part with another secret: refused, and not counted against the key.
    const forged = `${mine.slice(0, -1)}${mine.endsWith("A") ? "B" : "A"}`;
    const refused = await call("GET", PATH, { key: forged });
    expect(refused.status).toBe(401);
    expect(limits(refused)).toEqual([null, null]);
    const missing = await call("GET", `${PATH}/999`, { key: mine });
    expect(missing.status).toBe(404);
    expect(limits(missing)).toEqual(["5", "4"]);
    const invalid = await call("GET", `${PATH}?page=0`, { key: mine });
    expect(invalid.status).toBe(400);
    expect(limits(invalid)).toEqual(["5", "3"]);
  });

  it("allows 60 requests a minute by default", async () => {
    const repository = await openTestRepository();
    const app = buildApp({ repository });
    try {
      const key = await repository.createApiKey(
        await repository.ensureUser("alice", "2024-01-01 00:00:00"),
        "2024-01-01 00:00:00",
      );
      const answer = await app.inject({
        method: "GET",
        url: PATH,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(answer.headers["x-ratelimit-limit"]).toBe("60");
      expect(answer.headers["x-ratelimit-remaining"]).toBe("59");
    } finally {
      await app.close();
      await repository.close();
    }
  });

  it("is off with a limit of 0: no headers, no 429", async () => {
    const { call, key } = await serverForTest({ rateLimit: 0 });
    const mine = await key();
    for (let i = 0; i < 100; i++) {
      const answer = await call("GET", PATH, { key: mine });
      expect(answer.status).toBe(200);
      expect(limits(answer)).toEqual([null, null]);
    }
  });
});
