/** The table of settings and its one reader: where a value comes from, its rule, its message. */
import { describe, expect, it } from "vitest";

import { SETTINGS, type Setting, readSetting } from "../../sdk/client/domain/settings";

class CustomError extends Error {}

describe("readSetting", () => {
  const timeout = SETTINGS.requestTimeoutMs;
  const env = { NOTIFICATION_HANDLERS_TIMEOUT_MS: "2500" };

  it("takes the given value, else the variable, else the table's default; blank counts as unset", () => {
    expect(readSetting(timeout, { name: "t", value: "900", env })).toBe(900);
    expect(readSetting(timeout, { name: "t", value: 900, env })).toBe(900);
    expect(readSetting(timeout, { name: "t", value: undefined, env })).toBe(2_500);
    expect(readSetting(timeout, { name: "t", value: " ", env })).toBe(2_500);
    expect(readSetting(timeout, { name: "t", value: undefined, env: {} })).toBe(30_000);
    expect(
      readSetting(timeout, { name: "t", value: undefined, env: { NOTIFICATION_HANDLERS_TIMEOUT_MS: "" } }),
    ).toBe(30_000);
  });

  it("gives undefined for an unset setting without a default", () => {
    expect(readSetting(SETTINGS.baseUrl, { name: "b", value: undefined, env: {} })).toBeUndefined();
  });

  it("throws the error class asked for, naming the source, the variable, the rule and the value", () => {
    const read = () => readSetting(timeout, { name: "`timeout`", value: 1.5, env }, CustomError);
    expect(read).toThrow(CustomError);
    expect(read).toThrow(
      '`timeout` (or NOTIFICATION_HANDLERS_TIMEOUT_MS) must be a positive whole number of milliseconds (got "1.5")',
    );
    expect(() =>
      readSetting(SETTINGS.clientMaxRetries, { name: "`maxRetries`", value: -1, env: {} }),
    ).toThrow('`maxRetries` must be a whole number of retries (got "-1")');
  });

  it("never shows a secret's value", () => {
    const pin: Setting<number> = {
      env: "PIN",
      rule: {
        description: "four digits",
        parse: (raw) => (/^\d{4}$/.test(String(raw)) ? Number(raw) : undefined),
      },
      secret: true,
      description: "a secret number",
    };
    expect(() => readSetting(pin, { name: "pin", value: undefined, env: { PIN: "12345" } })).toThrow(
      "pin (or PIN) must be four digits (got [secret])",
    );
  });
});

describe("the table", () => {
  it("has a default for every setting but the connection's, and keeps the client's and the provider's retries apart", () => {
    const withoutDefault = Object.entries(SETTINGS)
      .filter(([, s]) => !("default" in s))
      .map(([name]) => name);
    expect(withoutDefault).toEqual(["baseUrl", "apiKey"]);
    expect([SETTINGS.clientMaxRetries.default, SETTINGS.providerMaxRetries.default]).toEqual([2, 6]);
  });

  it("accepts each default under its own rule", () => {
    const defaults = (Object.values(SETTINGS) as Setting<string | number>[]).flatMap((setting) =>
      setting.default === undefined ? [] : [{ rule: setting.rule, value: setting.default }],
    );
    expect(defaults).toHaveLength(Object.keys(SETTINGS).length - 2); // all but baseUrl and apiKey
    for (const { rule, value } of defaults) expect(rule.parse(value)).toBe(value);
  });

  it("marks the API key, and only it, secret", () => {
    const secret = Object.entries(SETTINGS)
      .filter(([, s]) => s.secret)
      .map(([name]) => name);
    expect(secret).toEqual(["apiKey"]);
  });
});
