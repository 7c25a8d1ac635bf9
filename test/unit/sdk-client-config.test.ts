/**
 * The client's options: the environment's fallbacks, the defaults from the table of settings, each
 * refusal naming the option, the variable and the rule, the API key never shown, and close().
 */
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ClientClosedError, MissingConfigurationError, NotificationHandlersClient } from "../../sdk/client";
import { type ClientOptions, checkOptions } from "../../sdk/client/client-options";
import { SETTINGS } from "../../sdk/client/domain/settings";

const KEY = "nh_live_9f8e7d6c5b4a39281706";
const clients: NotificationHandlersClient[] = [];

function make(
  options: ConstructorParameters<typeof NotificationHandlersClient>[0],
): NotificationHandlersClient {
  const client = new NotificationHandlersClient(options);
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** The options checked against an environment of their own, never the process's. */
const check = (options: ClientOptions, env: Record<string, string> = {}) => checkOptions(options, env);

describe("configuration", () => {
  it("falls back to NOTIFICATION_HANDLERS_BASE_URL and NOTIFICATION_HANDLERS_API_KEY", () => {
    const env = {
      NOTIFICATION_HANDLERS_BASE_URL: "https://env.example.test/app",
      NOTIFICATION_HANDLERS_API_KEY: KEY,
    };
    expect(check({}, env)).toMatchObject({ baseURL: "https://env.example.test/app/", apiKey: KEY });
  });

  it("prefers options over the environment", () => {
    const env = {
      NOTIFICATION_HANDLERS_BASE_URL: "https://env.example.test",
      NOTIFICATION_HANDLERS_API_KEY: "env-key",
    };
    expect(check({ baseURL: "https://option.example.test", apiKey: KEY }, env)).toMatchObject({
      baseURL: "https://option.example.test/",
      apiKey: KEY,
    });
  });

  it("names the option and the variable when the base URL is missing", () => {
    expect(() => check({ apiKey: KEY })).toThrow(MissingConfigurationError);
    expect(() => check({ apiKey: KEY })).toThrow(
      "No base URL: pass the `baseURL` option to new NotificationHandlersClient() or set the NOTIFICATION_HANDLERS_BASE_URL environment variable.",
    );
  });

  it("names the option and the variable when the API key is missing (or blank)", () => {
    const expected =
      "No API key: pass the `apiKey` option to new NotificationHandlersClient() or set the NOTIFICATION_HANDLERS_API_KEY environment variable.";
    expect(() => check({ baseURL: "https://x.test" })).toThrow(expected);
    expect(() => check({ baseURL: "https://x.test", apiKey: "  " })).toThrow(expected);
  });

  it("rejects a base URL that is not absolute http(s), naming the option, the variable and the rule", () => {
    try {
      make({ baseURL: "example.com", apiKey: KEY });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(MissingConfigurationError);
      expect((err as MissingConfigurationError).code).toBe("missing_configuration");
    }
    expect(() => check({ baseURL: "ftp://user:hunter2@example.com", apiKey: KEY })).toThrow(
      // The whole message: the password is nowhere in it.
      new MissingConfigurationError(
        '`baseURL` (or NOTIFICATION_HANDLERS_BASE_URL) must be an absolute http or https URL (got "ftp://example.com/")',
      ),
    );
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

  it("takes its defaults from the table of settings: 30 s, 2 retries, a minute's window", () => {
    const checked = check({ baseURL: "https://x.test", apiKey: KEY });
    expect(checked).toMatchObject({
      timeout: SETTINGS.requestTimeoutMs.default,
      maxRetries: SETTINGS.clientMaxRetries.default,
      rateLimitWindowMs: SETTINGS.rateLimitWindowMs.default,
    });
    expect(checked).toMatchObject({ timeout: 30_000, maxRetries: 2, rateLimitWindowMs: 60_000 });
  });

  it("gives the client the checked timeout and retries", () => {
    const client = make({ baseURL: "https://x.test", apiKey: KEY, timeout: 1_200, maxRetries: 4 });
    expect([client.timeout, client.maxRetries]).toEqual([1_200, 4]);
    expect(client.stats).toEqual({ requests: 0, retries: 0, pacedMs: 0, rateLimited: 0, backoffMs: 0 });
  });

  it("validates timeout and maxRetries, naming the option and the rule", () => {
    const base = { baseURL: "https://x.test", apiKey: KEY };
    expect(() => check({ ...base, timeout: 0 })).toThrow(
      '`timeout` (or NOTIFICATION_HANDLERS_TIMEOUT_MS) must be a positive whole number of milliseconds (got "0")',
    );
    expect(() => check({ ...base, maxRetries: -1 })).toThrow(
      '`maxRetries` must be a whole number of retries (got "-1")',
    );
    expect(() => make({ ...base, maxRetries: 1.5 })).toThrow(MissingConfigurationError);
  });

  it("takes the timeout from NOTIFICATION_HANDLERS_TIMEOUT_MS, the option first, and rejects a bad one", () => {
    const base = { baseURL: "https://x.test", apiKey: KEY };
    expect(check(base, { NOTIFICATION_HANDLERS_TIMEOUT_MS: "2500" }).timeout).toBe(2_500);
    expect(check({ ...base, timeout: 900 }, { NOTIFICATION_HANDLERS_TIMEOUT_MS: "2500" }).timeout).toBe(900);
    expect(() => check(base, { NOTIFICATION_HANDLERS_TIMEOUT_MS: "soon" })).toThrow(
      '`timeout` (or NOTIFICATION_HANDLERS_TIMEOUT_MS) must be a positive whole number of milliseconds (got "soon")',
    );
  });

  it("takes the rate-limit window from NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS, else a minute", () => {
    const base = { baseURL: "https://x.test", apiKey: KEY };
    const env = { NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS: "2000" };
    expect(check(base).rateLimitWindowMs).toBe(60_000);
    expect(check(base, env).rateLimitWindowMs).toBe(2_000);
    expect(check({ ...base, rateLimitWindowMs: 5_000 }, env).rateLimitWindowMs).toBe(5_000);
    expect(() => check(base, { NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS: "a minute" })).toThrow(
      "NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS",
    );
  });

  it("never shows the API key in util.inspect, JSON or its own properties", () => {
    // The timeout given, so the process's NOTIFICATION_HANDLERS_TIMEOUT_MS cannot change the line below.
    const client = make({ baseURL: "https://x.test", apiKey: KEY, timeout: 30_000 });
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
