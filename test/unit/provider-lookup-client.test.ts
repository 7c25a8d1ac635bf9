/**
 * The lookups' client, without the engine: the program's configuration (injected here) gives it the
 * connection, the timeout and the retries, read as the provider reads them.
 */
import { afterEach, describe, expect, it } from "vitest";

import { CONFIG_KEYS } from "../../provider/core/config";
import { lookupClient } from "../../provider/dynamic/lookup-client";
import type { NotificationHandlersClient } from "../../sdk/client/client";
import { SETTINGS } from "../../sdk/client/domain/settings";

const KEY = "lookup-key-0123456789";
const clients: NotificationHandlersClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A lookup's client under this program configuration and environment. */
function clientOf(
  config: Record<string, string>,
  env: Record<string, string> = {},
  options: { baseUrl?: string; apiKey?: string } = {},
): NotificationHandlersClient {
  const client = lookupClient(options, (key) => config[key], env);
  clients.push(client);
  return client;
}

const CONNECTION = { [CONFIG_KEYS.baseUrl]: "https://config.example.test", [CONFIG_KEYS.apiKey]: KEY };

describe("a lookup's client", () => {
  it("gets the configured request timeout and retries", () => {
    const client = clientOf({
      ...CONNECTION,
      [CONFIG_KEYS.requestTimeoutMs]: "1500",
      [CONFIG_KEYS.maxRetries]: "0",
    });
    expect([client.baseURL, client.timeout, client.maxRetries]).toEqual([
      "https://config.example.test/",
      1_500,
      0,
    ]);
  });

  it("falls back to NOTIFICATION_HANDLERS_TIMEOUT_MS and NOTIFICATION_HANDLERS_MAX_RETRIES", () => {
    const client = clientOf(CONNECTION, {
      NOTIFICATION_HANDLERS_TIMEOUT_MS: "4000",
      NOTIFICATION_HANDLERS_MAX_RETRIES: "1",
    });
    expect([client.timeout, client.maxRetries]).toEqual([4_000, 1]);
  });

  it("has the provider's defaults from the table, not the client's", () => {
    const client = clientOf(CONNECTION);
    expect([client.timeout, client.maxRetries]).toEqual([
      SETTINGS.requestTimeoutMs.default,
      SETTINGS.providerMaxRetries.default,
    ]);
    expect(client.maxRetries).not.toBe(SETTINGS.clientMaxRetries.default);
  });

  it("connects where the lookup says, with the configured timeout and retries", () => {
    const client = clientOf(
      { [CONFIG_KEYS.requestTimeoutMs]: "2500", [CONFIG_KEYS.maxRetries]: "3" },
      {},
      { baseUrl: "https://own.example.test", apiKey: KEY },
    );
    expect([client.baseURL, client.timeout, client.maxRetries]).toEqual([
      "https://own.example.test/",
      2_500,
      3,
    ]);
  });

  it("refuses a bad timeout, naming the key, the variable and the rule", () => {
    expect(() => clientOf({ ...CONNECTION, [CONFIG_KEYS.requestTimeoutMs]: "soon" })).toThrow(
      'notification-handlers:requestTimeoutMs (or NOTIFICATION_HANDLERS_TIMEOUT_MS) must be a positive whole number of milliseconds (got "soon")',
    );
  });

  it("without a connection, fails with the provider's hint", () => {
    expect(() => clientOf({})).toThrow(`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>`);
  });
});
