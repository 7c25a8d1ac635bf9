import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClientClosedError, MissingConfigurationError, NotificationHandlersClient } from "../../sdk";
import { checkOptions } from "../../sdk/client-options";

const KEY = "nh_live_9f8e7d6c5b4a39281706";
const saved: Record<string, string | undefined> = {};
const clients: NotificationHandlersClient[] = [];

function make(
  options: ConstructorParameters<typeof NotificationHandlersClient>[0],
): NotificationHandlersClient {
  const client = new NotificationHandlersClient(options);
  clients.push(client);
  return client;
}

beforeEach(() => {
  for (const name of [
    "NOTIFICATION_HANDLERS_BASE_URL",
    "NOTIFICATION_HANDLERS_API_KEY",
    "NOTIFICATION_HANDLERS_TIMEOUT_MS",
    "NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS",
  ]) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
});

afterEach(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe("configuration", () => {
  it("falls back to NOTIFICATION_HANDLERS_BASE_URL and NOTIFICATION_HANDLERS_API_KEY", () => {
    process.env.NOTIFICATION_HANDLERS_BASE_URL = "https://env.example.test/app";
    process.env.NOTIFICATION_HANDLERS_API_KEY = KEY;
    const client = make({});
    expect(client.baseURL).toBe("https://env.example.test/app/");
  });

  it("prefers options over the environment", () => {
    process.env.NOTIFICATION_HANDLERS_BASE_URL = "https://env.example.test";
    process.env.NOTIFICATION_HANDLERS_API_KEY = "env-key";
    expect(make({ baseURL: "https://option.example.test", apiKey: KEY }).baseURL).toBe(
      "https://option.example.test/",
    );
  });

  it("names the option and the variable when the base URL is missing", () => {
    expect(() => make({ apiKey: KEY })).toThrow(MissingConfigurationError);
    expect(() => make({ apiKey: KEY })).toThrow(
      "No base URL: pass the `baseURL` option to new NotificationHandlersClient() or set the NOTIFICATION_HANDLERS_BASE_URL environment variable.",
    );
  });

  it("names the option and the variable when the API key is missing (or blank)", () => {
    const expected =
      "No API key: pass the `apiKey` option to new NotificationHandlersClient() or set the NOTIFICATION_HANDLERS_API_KEY environment variable.";
    expect(() => make({ baseURL: "https://x.test" })).toThrow(expected);
    expect(() => make({ baseURL: "https://x.test", apiKey: "  " })).toThrow(expected);
  });

  it("rejects a base URL that is not absolute http(s), with a stable code", () => {
    try {
      make({ baseURL: "example.com", apiKey: KEY });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(MissingConfigurationError);
      expect((err as MissingConfigurationError).code).toBe("missing_configuration");
    }
    expect(() => make({ baseURL: "ftp://example.com", apiKey: KEY })).toThrow("must use http or https");
  });

  it("normalizes the base URL with or without a trailing / and a path prefix", () => {
    expect(make({ baseURL: "https://x.test", apiKey: KEY }).baseURL).toBe("https://x.test/");
    expect(make({ baseURL: "https://x.test/", apiKey: KEY }).baseURL).toBe("https://x.test/");
    expect(make({ baseURL: "https://x.test/site/sub", apiKey: KEY }).baseURL).toBe(
      "https://x.test/site/sub/",
    );
    expect(make({ baseURL: "https://x.test/site/sub/", apiKey: KEY }).baseURL).toBe(
      "https://x.test/site/sub/",
    );
  });

  it("has defaults and validates timeout and maxRetries", () => {
    const client = make({ baseURL: "https://x.test", apiKey: KEY });
    expect(client.timeout).toBe(30_000);
    expect(client.maxRetries).toBe(2);
    expect(client.stats).toEqual({ requests: 0, retries: 0, pacedMs: 0, rateLimited: 0, backoffMs: 0 });
    expect(() => make({ baseURL: "https://x.test", apiKey: KEY, timeout: 0 })).toThrow("timeout");
    expect(() => make({ baseURL: "https://x.test", apiKey: KEY, maxRetries: -1 })).toThrow("maxRetries");
  });

  it("takes the timeout from NOTIFICATION_HANDLERS_TIMEOUT_MS, the option first, and rejects a bad one", () => {
    process.env.NOTIFICATION_HANDLERS_TIMEOUT_MS = "2500";
    expect(make({ baseURL: "https://x.test", apiKey: KEY }).timeout).toBe(2_500);
    expect(make({ baseURL: "https://x.test", apiKey: KEY, timeout: 900 }).timeout).toBe(900);
    process.env.NOTIFICATION_HANDLERS_TIMEOUT_MS = "soon";
    expect(() => make({ baseURL: "https://x.test", apiKey: KEY })).toThrow(
      "NOTIFICATION_HANDLERS_TIMEOUT_MS",
    );
  });

  it("takes the rate-limit window from NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS, else a minute", () => {
    const base = { baseURL: "https://x.test", apiKey: KEY };
    expect(checkOptions(base).rateLimitWindowMs).toBe(60_000);
    process.env.NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS = "2000";
    expect(checkOptions(base).rateLimitWindowMs).toBe(2_000);
    expect(checkOptions({ ...base, rateLimitWindowMs: 5_000 }).rateLimitWindowMs).toBe(5_000);
    process.env.NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS = "a minute";
    expect(() => checkOptions(base)).toThrow("NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS");
  });

  it("never shows the API key in util.inspect, JSON or its own properties", () => {
    const client = make({ baseURL: "https://x.test", apiKey: KEY });
    expect(inspect(client)).not.toContain(KEY);
    expect(inspect(client, { showHidden: true, depth: Infinity, customInspect: false })).not.toContain(KEY);
    expect(JSON.stringify(client)).not.toContain(KEY);
    expect(Object.getOwnPropertyNames(client).map((n) => String((client as never)[n]))).not.toContain(KEY);
    expect(inspect(client)).toBe(
      'NotificationHandlersClient { baseURL: "https://x.test/", timeout: 30000, maxRetries: 2 }',
    );
  });

  it("close() is idempotent, and a closed client refuses requests", async () => {
    const client = make({ baseURL: "https://x.test", apiKey: KEY });
    await client.close();
    await client.close();
    await expect(client.notificationHandlers.retrieve(1)).rejects.toThrow(ClientClosedError);
  });
});
