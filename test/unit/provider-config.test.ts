import { afterEach, describe, expect, it } from "vitest";

import { CONFIG_KEYS, readSettings, settingsFailures } from "../../provider/config";

// The files of a worker share its process: the variables are put back after each test.
const VARIABLES = ["NOTIFICATION_HANDLERS_TIMEOUT_MS", "NOTIFICATION_HANDLERS_MAX_RETRIES"] as const;
const saved = VARIABLES.map((name) => [name, process.env[name]] as const);
afterEach(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const config =
  (values: Record<string, string>) =>
  (key: string): string | undefined =>
    values[key];

describe("the request timeout setting", () => {
  it("is undefined (the client's default) when neither the key nor the variable is set", () => {
    delete process.env.NOTIFICATION_HANDLERS_TIMEOUT_MS;
    expect(readSettings(config({})).timeoutMs).toBeUndefined();
  });

  it("comes from the stack config, else NOTIFICATION_HANDLERS_TIMEOUT_MS", () => {
    process.env.NOTIFICATION_HANDLERS_TIMEOUT_MS = "4000";
    expect(readSettings(config({})).timeoutMs).toBe(4_000);
    expect(readSettings(config({ [CONFIG_KEYS.requestTimeoutMs]: "1500" })).timeoutMs).toBe(1_500);
  });

  it("must be a positive whole number of milliseconds, and the error names the key and the variable", () => {
    delete process.env.NOTIFICATION_HANDLERS_TIMEOUT_MS;
    for (const bad of ["0", "-5", "1.5", "2s"]) {
      expect(() => readSettings(config({ [CONFIG_KEYS.requestTimeoutMs]: bad }))).toThrow(
        /notification-handlers:requestTimeoutMs \(or NOTIFICATION_HANDLERS_TIMEOUT_MS\) must be a positive whole number/,
      );
    }
  });
});

describe("the retries setting", () => {
  it("is 6 when neither the key nor the variable is set", () => {
    delete process.env.NOTIFICATION_HANDLERS_MAX_RETRIES;
    expect(readSettings(config({})).maxRetries).toBe(6);
  });

  it("comes from the stack config, else NOTIFICATION_HANDLERS_MAX_RETRIES, and may be 0", () => {
    process.env.NOTIFICATION_HANDLERS_MAX_RETRIES = "2";
    expect(readSettings(config({})).maxRetries).toBe(2);
    expect(readSettings(config({ [CONFIG_KEYS.maxRetries]: "0" })).maxRetries).toBe(0);
  });

  it("must be a whole number, and the error names the key and the variable", () => {
    for (const bad of ["-1", "1.5", "three"]) {
      expect(() => readSettings(config({ [CONFIG_KEYS.maxRetries]: bad }))).toThrow(
        /notification-handlers:maxRetries \(or NOTIFICATION_HANDLERS_MAX_RETRIES\) must be a whole number of retries/,
      );
    }
  });
});

describe("the settings' failures", () => {
  it("name every key that breaks its rule, where readSettings stops at the first", () => {
    delete process.env.NOTIFICATION_HANDLERS_TIMEOUT_MS;
    delete process.env.NOTIFICATION_HANDLERS_MAX_RETRIES;
    const values = config({
      [CONFIG_KEYS.updateStrategy]: "sideways",
      [CONFIG_KEYS.maxRetries]: "-1",
      [CONFIG_KEYS.requestTimeoutMs]: "1000",
    });
    expect(settingsFailures(values)).toEqual([
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
    expect(() => readSettings(values)).toThrow(settingsFailures(values)[0]?.reason);
    expect(settingsFailures(config({ [CONFIG_KEYS.updateStrategy]: "replace" }))).toEqual([]);
  });
});
