/**
 * What a user sees when something is wrong, under the real engine: invalid inputs fail the preview
 * naming the property with no write to the API; a missing key and an unreachable server give a clear
 * error and record nothing; secrets never reach the state in plain text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ALL_FIELDS } from "../../sdk/client/domain/catalog";
import { pkg, providerConfig, stackForTest, startServer, type TestServer } from "../support/engine/stacks";

const SECRET_PROPERTIES = new Set(ALL_FIELDS.filter((f) => f.secret).map((f) => f.property));

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

function resourcesIn(state: string): string[] {
  const parsed = JSON.parse(state) as { checkpoint: { latest?: { resources?: { type: string }[] } } };
  return (parsed.checkpoint.latest?.resources ?? [])
    .map((r) => r.type)
    .filter((t) => t.includes("NotificationHandler"));
}

describe("invalid inputs", () => {
  // The rules themselves are the unit tests' (provider-inputs); here, what the engine makes of a
  // failing check: a failed preview and up naming each property, no request, no secret value shown.
  const cases: { what: string; args: Record<string, unknown>; expected: string[] }[] = [
    {
      // A program in plain JavaScript can pass what TypeScript refuses.
      what: "an http Slack URL, a field of another type and a name too long",
      args: { type: "slack", slack: "http://insecure.example.com", email: "a@b.co", name: "x".repeat(129) },
      // Each failure is the resource's and names its property in the reason: the engine shows the
      // value of a property a failure names, a credential's included.
      expected: [
        "resource 'bad' has a problem: slack must be an absolute https URL",
        "resource 'bad' has a problem: email belongs to type email, not slack",
        "resource 'bad' has a problem: name must be at most 128 characters",
      ],
    },
  ];

  it.each(cases)(
    "$what fails the preview naming the property, with no request to the API",
    async ({ args, expected }) => {
      const key = await server.newKey();
      const { NotificationHandler } = pkg();
      const s = await stackForTest({
        config: providerConfig(server.url, key),
        program: () => {
          new NotificationHandler("bad", args as never);
          return Promise.resolve({});
        },
      });
      const mark = server.served.length;
      const error = await s.preview().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(Error);
      for (const text of expected) expect(error?.message).toContain(text);
      // Values of secret fields never reach the engine's messages.
      for (const [property, value] of Object.entries(args)) {
        if (SECRET_PROPERTIES.has(property))
          expect(s.output.join("\n") + (error?.message ?? "")).not.toContain(value);
      }
      expect(server.countSince(mark).total).toBe(0);

      await expect(s.up()).rejects.toThrow(expected[1] ?? "");
      expect(server.countSince(mark).total).toBe(0);
      expect(await server.handlers(key)).toEqual([]);
    },
  );
});

describe("configuration errors", () => {
  it("a missing API key fails the preview saying how to set it, and nothing is created", async () => {
    const { NotificationHandler } = pkg();
    const s = await stackForTest({
      config: { "notification-handlers:baseUrl": server.url },
      program: () => {
        new NotificationHandler("h", { type: "internal_notification" });
        return Promise.resolve({});
      },
    });
    const mark = server.served.length;
    const error = await s.up().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("pulumi config set --secret notification-handlers:apiKey");
    expect(error?.message).toContain("NOTIFICATION_HANDLERS_API_KEY");
    expect(server.countSince(mark).total).toBe(0);
    expect(resourcesIn(await s.exportState())).toEqual([]);
  });

  it("an unreachable server gives a clear error and records nothing as created", async () => {
    const { NotificationHandler } = pkg();
    const gone = await startServer();
    const url = gone.url;
    await gone.close();
    const s = await stackForTest({
      // One retry, not the default six: the error is the same, without 20 s of backoff.
      config: { ...providerConfig(url, "any-key"), "notification-handlers:maxRetries": "1" },
      program: () => {
        new NotificationHandler("h", { type: "internal_notification" });
        return Promise.resolve({});
      },
    });
    const error = await s.up().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/could not connect|ECONNREFUSED|connection/i);
    expect(error?.message).not.toContain("any-key");
    expect(resourcesIn(await s.exportState())).toEqual([]);
  });
});

describe("secrets", () => {
  it("keeps credentials and the API key out of the exported state", async () => {
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    const secrets = {
      slack: "https://hooks.slack.com/services/T0SECRET/B0SECRET/slack-secret-value",
      telegram: "123456:telegram-secret-token",
      x: [
        "x-consumer-key-secret",
        "x-consumer-secret-secret",
        "x-access-token-secret",
        "x-access-token-secret-secret",
      ],
      webhook: "https://example.com/hooks/webhook-secret-path",
    };
    const s = await stackForTest({
      config: providerConfig(server.url, key),
      program: () => {
        // Passed as plain strings: the resource makes them secret itself.
        new NotificationHandler("slack", { type: "slack", slack: secrets.slack });
        new NotificationHandler("telegram", {
          type: "telegram",
          telegram: secrets.telegram,
          telegramChatId: "-1001",
        });
        new NotificationHandler("x", {
          type: "x",
          xConsumerKey: secrets.x[0] ?? "",
          xConsumerSecret: secrets.x[1] ?? "",
          xAccessToken: secrets.x[2] ?? "",
          xAccessTokenSecret: secrets.x[3] ?? "",
        });
        new NotificationHandler("webhook", { type: "webhook", webhook: secrets.webhook });
        return Promise.resolve({});
      },
    });
    await s.up();
    expect(await server.handlers(key)).toHaveLength(4);
    const state = await s.exportState();
    for (const value of [key, secrets.slack, secrets.telegram, ...secrets.x, secrets.webhook]) {
      expect(state.includes(value), "a secret value is in the state file").toBe(false);
    }
    expect(state).toContain("NotificationHandler::slack"); // the state file is the right one
    const printed = s.output.join("\n");
    expect(printed.length, "the engine's output was captured").toBeGreaterThan(0);
    expect(printed.includes(key), "the API key is in the engine output").toBe(false);
  });
});

describe("a create whose read-back fails", () => {
  it("records the handler it made as a partial failure, so no orphan and no duplicate are left", async () => {
    // Reads of single handlers fail (the connection is cut) while armed: the create is stored, then
    // its verifying read fails through every retry.
    let failReads = true;
    const flaky = await startServer({
      cutAfterHandling: (method, path) => failReads && method === "GET" && /\/\d+$/.test(path),
    });
    try {
      const key = await flaky.newKey();
      const { NotificationHandler } = pkg();
      const s = await stackForTest({
        config: { ...providerConfig(flaky.url, key), "notification-handlers:maxRetries": "1" },
        program: () => {
          const h = new NotificationHandler("h", { type: "internal_notification", name: "Inbox" });
          return Promise.resolve({ id: h.handlerId });
        },
      });
      const error = await s.up().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      const [made] = await flaky.handlers(key);
      expect(made).toBeDefined();
      expect(error?.message).toContain(`handler ${made?.id} exists, but`);
      expect(resourcesIn(await s.exportState())).toEqual([
        "pulumi-nodejs:dynamic/notification-handlers:NotificationHandler",
      ]);

      failReads = false;
      const up = await s.up();
      expect(up.outputs.id?.value).toBe(made?.id);
      expect(await flaky.handlers(key)).toHaveLength(1);
    } finally {
      await flaky.close();
    }
  });
});
