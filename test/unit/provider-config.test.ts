/**
 * The provider's configuration: its defaults from the table of settings, each setting from the
 * stack's config, else its environment variable, and each failure naming the key, the variable and
 * the rule, never a credential.
 */
import { describe, expect, it } from "vitest";

import { CONFIG_KEYS, readSettings, settingsFailures } from "../../provider/core/config";
import { SETTINGS } from "../../sdk/client/domain/settings";

const config =
  (values: Record<string, string>) =>
  (key: string): string | undefined =>
    values[key];

describe("the provider's defaults", () => {
  it("come from the table of settings when neither a key nor a variable is set", () => {
    expect(readSettings(config({}), {})).toEqual({
      baseUrl: undefined,
      apiKey: undefined,
      updateStrategy: SETTINGS.updateStrategy.default,
      timeoutMs: SETTINGS.requestTimeoutMs.default,
      maxRetries: SETTINGS.providerMaxRetries.default,
    });
  });

  it("are in-place, 30 s and 6 retries (the client's own retry default is 2)", () => {
    expect(readSettings(config({}), {})).toMatchObject({
      updateStrategy: "in-place",
      timeoutMs: 30_000,
      maxRetries: 6,
    });
    expect(SETTINGS.clientMaxRetries.default).toBe(2);
  });

  it("are read from the environment given, not from process.env", () => {
    const env = {
      NOTIFICATION_HANDLERS_BASE_URL: "https://env.example.test",
      NOTIFICATION_HANDLERS_API_KEY: "k",
    };
    expect(readSettings(config({}), env)).toMatchObject({ baseUrl: "https://env.example.test", apiKey: "k" });
  });
});

describe("the connection settings", () => {
  it("come from the stack config, else the environment; blank counts as unset", () => {
    const env = { NOTIFICATION_HANDLERS_BASE_URL: "https://env.example.test" };
    expect(readSettings(config({ [CONFIG_KEYS.baseUrl]: "https://config.example.test" }), env).baseUrl).toBe(
      "https://config.example.test",
    );
    expect(readSettings(config({ [CONFIG_KEYS.baseUrl]: "  " }), env).baseUrl).toBe(
      "https://env.example.test",
    );
  });

  it("refuse a base URL that is not http(s), naming the key, the variable and the rule, without credentials", () => {
    expect(() =>
      readSettings(config({ [CONFIG_KEYS.baseUrl]: "ftp://user:hunter2@example.com" }), {}),
    ).toThrow(
      // The whole message: the password is nowhere in it.
      new Error(
        'notification-handlers:baseUrl (or NOTIFICATION_HANDLERS_BASE_URL) must be an absolute http or https URL (got "ftp://example.com/")',
      ),
    );
  });
});

describe("the update strategy setting", () => {
  it("must be one of the strategies, and the error names the key and the rule", () => {
    expect(readSettings(config({ [CONFIG_KEYS.updateStrategy]: "replace" }), {}).updateStrategy).toBe(
      "replace",
    );
    expect(() => readSettings(config({ [CONFIG_KEYS.updateStrategy]: "sideways" }), {})).toThrow(
      'notification-handlers:updateStrategy must be one of "in-place", "replace" (got "sideways")',
    );
  });
});

describe("the request timeout setting", () => {
  it("comes from the stack config, else NOTIFICATION_HANDLERS_TIMEOUT_MS", () => {
    const env = { NOTIFICATION_HANDLERS_TIMEOUT_MS: "4000" };
    expect(readSettings(config({}), env).timeoutMs).toBe(4_000);
    expect(readSettings(config({ [CONFIG_KEYS.requestTimeoutMs]: "1500" }), env).timeoutMs).toBe(1_500);
  });

  it("must be a positive whole number of milliseconds, and the error names the key and the variable", () => {
    for (const bad of ["0", "-5", "1.5", "2s"]) {
      expect(() => readSettings(config({ [CONFIG_KEYS.requestTimeoutMs]: bad }), {})).toThrow(
        /notification-handlers:requestTimeoutMs \(or NOTIFICATION_HANDLERS_TIMEOUT_MS\) must be a positive whole number/,
      );
    }
  });
});

describe("the retries setting", () => {
  it("comes from the stack config, else NOTIFICATION_HANDLERS_MAX_RETRIES, and may be 0", () => {
    const env = { NOTIFICATION_HANDLERS_MAX_RETRIES: "2" };
    expect(readSettings(config({}), env).maxRetries).toBe(2);
    expect(readSettings(config({ [CONFIG_KEYS.maxRetries]: "0" }), env).maxRetries).toBe(0);
  });

  it("must be a whole number, and the error names the key and the variable", () => {
    for (const bad of ["-1", "1.5", "three"]) {
      expect(() => readSettings(config({ [CONFIG_KEYS.maxRetries]: bad }), {})).toThrow(
        /notification-handlers:maxRetries \(or NOTIFICATION_HANDLERS_MAX_RETRIES\) must be a whole number of retries/,
      );
    }
    expect(() => readSettings(config({}), { NOTIFICATION_HANDLERS_MAX_RETRIES: "many" })).toThrow(
      /NOTIFICATION_HANDLERS_MAX_RETRIES\) must be a whole number of retries \(got "many"\)/,
    );
  });
});

describe("the API key setting", () => {
  it("comes trimmed from the stack config, else NOTIFICATION_HANDLERS_API_KEY", () => {
    const env = { NOTIFICATION_HANDLERS_API_KEY: "env-key" };
    expect(readSettings(config({ [CONFIG_KEYS.apiKey]: " nh_key " }), env).apiKey).toBe("nh_key");
    expect(readSettings(config({}), env).apiKey).toBe("env-key");
  });
});

describe("the settings' failures", () => {
  it("name every key that breaks its rule, where readSettings stops at the first", () => {
    const values = config({
      [CONFIG_KEYS.updateStrategy]: "sideways",
      [CONFIG_KEYS.maxRetries]: "-1",
      [CONFIG_KEYS.requestTimeoutMs]: "1000",
    });
    expect(settingsFailures(values, {})).toEqual([
      {
        key: "updateStrategy",
        reason: 'notification-handlers:updateStrategy must be one of "in-place", "replace" (got "sideways")',
      },
      {
        key: "maxRetries",
        reason:
          'notification-handlers:maxRetries (or NOTIFICATION_HANDLERS_MAX_RETRIES) must be a whole number of retries (got "-1")',
      },
    ]);
    expect(() => readSettings(values, {})).toThrow(settingsFailures(values, {})[0]?.reason);
    expect(settingsFailures(config({ [CONFIG_KEYS.updateStrategy]: "replace" }), {})).toEqual([]);
  });
});
