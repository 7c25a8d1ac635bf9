/**
 * The emulated 60-requests-a-minute limit of deployed instances: `pulumi up` of 100 handlers finishes
 * with no error reaching the user, because the client paces itself. The run prints how many requests
 * it made and how long it paced. It waits for real rate-limit windows, about two minutes.
 */
import { afterAll, describe, expect, it } from "vitest";

import {
  type TestServer,
  type TestStack,
  createStack,
  pkg,
  providerConfig,
  startServer,
  writeBudget,
} from "./harness";

let server: TestServer | undefined;
let stack: TestStack | undefined;
afterAll(async () => {
  await stack?.dispose();
  await server?.close();
});

describe("the emulated rate limit of 60 requests a minute", () => {
  it("an up of 100 handlers finishes with no error reaching the user", { timeout: 600_000 }, async () => {
    server = await startServer({ emulate: "2026", rateLimit: 60 });
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    const N = 100;
    stack = await createStack({
      config: providerConfig(server.url, key, "replace"),
      program: () => {
        for (let i = 0; i < N; i++) {
          new NotificationHandler(`h${i}`, { type: "internal_notification", name: `handler ${i}` });
        }
        return Promise.resolve({});
      },
    });
    const started = Date.now();
    const up = await stack.up();
    const seconds = (Date.now() - started) / 1000;
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toMatchObject({ create: N + 1 });
    expect(await server.handlers(key)).toHaveLength(N);

    const served = server.served;
    const limited = served.filter((s) => s.status === 429).length;
    const output = stack.output.join("\n");
    const paced = [...output.matchAll(/(\d+) requests so far, (\d+) s of waiting in total/g)].at(-1);
    process.stdout.write(
      `rate limit: up of ${N} handlers against 60 requests/min: ${served.length} requests ` +
        `(${JSON.stringify(server.countSince(0))}), ` +
        `${limited} answered 429 (retried by the client), ${seconds.toFixed(0)} s in all; ` +
        `last pacing note: ${paced?.[0] ?? "none"}\n`,
    );
    // One create per handler; the creates' verifying reads are shared list requests, and one list
    // reads the account first. A 429 would be retried, never shown.
    expect(served.filter((s) => s.method === "POST").length).toBe(N);
    expect(served.length - limited).toBeLessThanOrEqual(writeBudget(N));
    expect(output).not.toContain("error:");
    expect(paced).toBeDefined();
  });
});
