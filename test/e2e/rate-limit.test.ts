/**
 * A deployed instance's rate limit under the engine: `pulumi up` of many handlers finishes with no
 * error reaching the user, because the client paces itself by the limit's headers. The window is
 * emulated short (10 requests in 2 s, the same shape as 60 a minute), and the provider's client told
 * so (answers do not say), so the test waits seconds, not minutes; the real figures at 60 a minute
 * are the benchmark's (`npm run bench:engine -- --rate-limited`).
 */
import { describe, expect, it } from "vitest";

import { pkg, providerConfig, serverForTest, stackForTest } from "../support/engine/stacks";

const WINDOW_MS = 2_000;

describe("an emulated rate limit, several windows' worth of requests", () => {
  it("an up of 30 handlers finishes with no error reaching the user", async () => {
    const server = await serverForTest({ emulate: "2026", rateLimit: 10, rateLimitWindowMs: WINDOW_MS });
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    const N = 30;
    const stack = await stackForTest({
      config: providerConfig(server.url, key, "replace"),
      env: { NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) },
      program: () => {
        for (let i = 0; i < N; i++) {
          new NotificationHandler(`h${i}`, { type: "internal_notification", name: `handler ${i}` });
        }
        return Promise.resolve({});
      },
    });
    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toMatchObject({ create: N + 1 });
    expect(await server.handlers(key)).toHaveLength(N);

    // One create per handler: a 429 is waited out and retried by the client, never shown.
    const served = server.served;
    expect(served.filter((s) => s.method === "POST" && s.status !== 429).length).toBe(N);
    const output = stack.output.join("\n");
    expect(output).not.toContain("error:");
    expect(output).toMatch(/pacing requests to the server's rate limit: \d+ requests so far/);
  });
});
