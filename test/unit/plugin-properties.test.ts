/**
 * The plugin's translation of property values between the engine's Structs and plain objects:
 * secrets unwrapped (and remembered by property), unknowns kept, other special values refused,
 * secrets wrapped again by name.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { describe, expect, it } from "vitest";

import { decodeProperties, encodeProperties, secret } from "../../provider/plugin/properties";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = (value: unknown): Record<string, unknown> => ({
  [SIG]: "1b47061264138c4ac30d75fd1eb44270",
  value,
});
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("decodeProperties", () => {
  it("unwraps secrets at any depth, names the properties that held one, and keeps unknowns", () => {
    const struct = Struct.fromJavaScript({
      name: "Ops",
      slack: SECRET("https://hooks.slack.com/x"),
      connection: { baseUrl: "https://a.example", apiKey: SECRET("k") },
      list: [1, SECRET(true), null],
      email: UNKNOWN,
    });
    const { values, secrets } = decodeProperties(struct);
    expect(values).toEqual({
      name: "Ops",
      slack: "https://hooks.slack.com/x",
      connection: { baseUrl: "https://a.example", apiKey: "k" },
      list: [1, true, null],
      email: UNKNOWN,
    });
    expect([...secrets].sort()).toEqual(["connection", "list", "slack"]);
  });

  it("is empty for an absent Struct (an import sends no properties)", () => {
    expect(decodeProperties(undefined)).toEqual({ values: {}, secrets: new Set() });
  });

  it("refuses an asset or a resource reference, naming where it is", () => {
    const asset = Struct.fromJavaScript({
      files: [{ [SIG]: "c44067f5952c0a294b673a41bacd8c17", path: "a.txt" }],
    });
    expect(() => decodeProperties(asset)).toThrow("files[0]: this kind of value is not supported here");
  });
});

describe("encodeProperties", () => {
  it("wraps the named properties as secrets and leaves undefined values out", () => {
    const struct = encodeProperties(
      {
        name: "Ops",
        slack: "https://hooks.slack.com/x",
        settings: { slack: "s", gone: undefined },
        none: undefined,
      },
      ["slack", "settings", "absent"],
    );
    expect(struct.toJavaScript()).toEqual({
      name: "Ops",
      slack: SECRET("https://hooks.slack.com/x"),
      settings: SECRET({ slack: "s" }),
    });
  });

  it("keeps secrets already placed inside a value, and round-trips through decode", () => {
    const struct = encodeProperties({ handlers: [{ id: 1, settings: secret({ a: "b" }) }] });
    expect(struct.toJavaScript()).toEqual({ handlers: [{ id: 1, settings: SECRET({ a: "b" }) }] });
    expect(decodeProperties(struct).values).toEqual({ handlers: [{ id: 1, settings: { a: "b" } }] });
  });
});
