/**
 * The client's types: a handler read in every shape the reference server and deployed instances send,
 * into one normalized type, and the parameter types of create, update and list, which refuse what the
 * API would.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { formatDatetime } from "../../sdk/client/domain/resources/handler-encoding";
import type {
  NotificationHandlerCreateParams,
  NotificationHandlerListParams,
  NotificationHandlerUpdateParams,
} from "../../sdk/client/domain/resources/handler-params";
import { NotificationHandlerRecord, typeSettings } from "../../sdk/client/domain/resources/handler-parsing";
import { parseJSONKeepingBigIntegers } from "../../sdk/client/core/json";

const base = { id: 7, type: "email", name: "Ops", last_datetime: null, datetime: "2025-01-02 03:04:05" };

describe("NotificationHandler (reading)", () => {
  it("reads the reference server's shape as is", () => {
    expect(
      NotificationHandlerRecord.parse({ ...base, settings: { email: "a@b.co" }, is_enabled: true }),
    ).toEqual({
      id: 7,
      type: "email",
      name: "Ops",
      settings: { email: "a@b.co" },
      is_enabled: true,
      is_pending: false,
      last_datetime: null,
      datetime: "2025-01-02 03:04:05",
    });
  });

  it("reads is_enabled as boolean, 0/1/2 and '0'/'1' (2 = enabled, pending confirmation)", () => {
    const read = (is_enabled: unknown) => {
      const h = NotificationHandlerRecord.parse({ ...base, settings: {}, is_enabled });
      return [h.is_enabled, h.is_pending];
    };
    expect(read(true)).toEqual([true, false]);
    expect(read(false)).toEqual([false, false]);
    expect(read(1)).toEqual([true, false]);
    expect(read(0)).toEqual([false, false]);
    expect(read(2)).toEqual([true, true]);
    expect(read("1")).toEqual([true, false]);
    expect(read("0")).toEqual([false, false]);
    expect(read("2")).toEqual([true, true]);
    expect(read(null)).toEqual([false, false]);
  });

  it("reads settings sent as a JSON-encoded string", () => {
    const h = NotificationHandlerRecord.parse({ ...base, settings: '{"email":"a@b.co"}', is_enabled: 1 });
    expect(h.settings).toEqual({ email: "a@b.co" });
  });

  it("keeps extra settings keys, as strings (email_is_confirmed, activation_code)", () => {
    const h = NotificationHandlerRecord.parse({
      ...base,
      settings: { email: "a@b.co", email_is_confirmed: 0, activation_code: "abc" },
      is_enabled: 2,
    });
    expect(h.settings).toEqual({ email: "a@b.co", email_is_confirmed: "0", activation_code: "abc" });
    expect(typeSettings(h)).toEqual({ email: "a@b.co" });
  });

  it("reads a whatsapp number stored as an integer as its digits", () => {
    const h = NotificationHandlerRecord.parse({
      ...base,
      type: "whatsapp",
      settings: { whatsapp: 15551234567 },
    });
    expect(h.settings).toEqual({ whatsapp: "15551234567" });
    const fromString = NotificationHandlerRecord.parse({
      ...base,
      type: "whatsapp",
      settings: '{"whatsapp":15551234567}',
    });
    expect(fromString.settings).toEqual({ whatsapp: "15551234567" });
  });

  it("keeps integers too large for a double exact when settings is a JSON string", () => {
    expect(parseJSONKeepingBigIntegers('{"n":123456789012345678901}')).toEqual({
      n: "123456789012345678901",
    });
  });

  it("keeps big integers anywhere in an answer, and only those", () => {
    const text =
      '{"data":[{"id":1,"settings":{"whatsapp":15551234567}},{"id":2,"settings":{"whatsapp":-90071992547409930}}],' +
      '"safe":9007199254740991,"float":12345678901234567.5,"exp":1e20,"digits":"12345678901234567890"}';
    expect(parseJSONKeepingBigIntegers(text)).toEqual({
      data: [
        { id: 1, settings: { whatsapp: 15551234567 } },
        { id: 2, settings: { whatsapp: "-90071992547409930" } },
      ],
      safe: 9007199254740991,
      float: 12345678901234568, // not an integer in the text: parsed as a number, rounded
      exp: 1e20,
      digits: "12345678901234567890",
    });
    // Long digit runs inside strings alone (phones, tokens) change nothing.
    expect(parseJSONKeepingBigIntegers('{"t":"1234567890123456789","n":[1,2]}')).toEqual({
      t: "1234567890123456789",
      n: [1, 2],
    });
  });

  it("keeps a settings key named __proto__ as an own key, never as the prototype", () => {
    const h = NotificationHandlerRecord.parse({ ...base, settings: '{"__proto__":"x","email":"a@b.co"}' });
    expect(Object.keys(h.settings)).toEqual(["__proto__", "email"]);
    expect(Object.getPrototypeOf(h.settings)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(h.settings, "__proto__")?.value).toBe("x");
  });

  it("reads PHP's [] for empty settings, and tolerates null or unparsable settings", () => {
    const read = (settings: unknown) => NotificationHandlerRecord.parse({ ...base, settings }).settings;
    expect(read([])).toEqual({});
    expect(read(null)).toEqual({});
    expect(read("not json")).toEqual({});
    expect(read(undefined)).toEqual({});
  });

  it("reads a null type (2026 damage) and a type not in the catalog without failing", () => {
    const damaged = NotificationHandlerRecord.parse({
      ...base,
      type: null,
      settings: { "": "" },
      is_enabled: 1,
    });
    expect(damaged.type).toBeNull();
    expect(damaged.settings).toEqual({ "": "" });
    expect(typeSettings(damaged)).toEqual({});
    const custom = NotificationHandlerRecord.parse({
      ...base,
      type: "push_subscriber_id",
      settings: { push: "x" },
    });
    expect(custom.type).toBe("push_subscriber_id");
    expect(typeSettings(custom)).toEqual({});
  });

  it("reads ids as numbers or numeric strings and drops extra fields such as user_id", () => {
    const h = NotificationHandlerRecord.parse({ ...base, id: "42", user_id: 3, settings: {} });
    expect(h.id).toBe(42);
    expect(h).not.toHaveProperty("user_id");
  });

  it("rejects a handler without a usable id, and anything that is not an object", () => {
    expect(NotificationHandlerRecord.safeParse({ ...base, id: null }).success).toBe(false);
    expect(NotificationHandlerRecord.safeParse({ ...base, id: "x" }).success).toBe(false);
    for (const value of [null, undefined, 7, "x", [base]]) {
      expect(NotificationHandlerRecord.safeParse(value).success).toBe(false);
    }
  });

  it("has the documented normalized type", () => {
    expectTypeOf<NotificationHandlerRecord>().toEqualTypeOf<{
      id: number;
      type: string | null;
      name: string;
      settings: Record<string, string>;
      is_enabled: boolean;
      is_pending: boolean;
      last_datetime: string | null;
      datetime: string;
    }>();
  });
});

describe("parameter types", () => {
  it("create: a union discriminated by type; each type's fields required, other types' fields rejected", () => {
    const ok: NotificationHandlerCreateParams[] = [
      { name: "a", type: "email", email: "a@b.co" },
      { name: "a", type: "telegram", telegram: "1:x", telegram_chat_id: "-1", is_enabled: false },
      { name: "a", type: "internal_notification" },
      {
        name: "a",
        type: "x",
        x_consumer_key: "k",
        x_consumer_secret: "s",
        x_access_token: "t",
        x_access_token_secret: "u",
      },
    ];
    expect(ok).toHaveLength(4);
    // @ts-expect-error a field of another type does not compile
    const other: NotificationHandlerCreateParams = {
      name: "a",
      type: "email",
      email: "a@b.co",
      webhook: "https://x",
    };
    // @ts-expect-error the type's fields are required
    const missing: NotificationHandlerCreateParams = { name: "a", type: "telegram", telegram: "1:x" };
    // @ts-expect-error name is required
    const noName: NotificationHandlerCreateParams = { type: "internal_notification" };
    // @ts-expect-error the type must be one of the catalog
    const badType: NotificationHandlerCreateParams = { name: "a", type: "pager" };
    expect([other, missing, noName, badType]).toHaveLength(4);
  });

  it("update: all optional without type; with type, that type's fields required", () => {
    const ok: NotificationHandlerUpdateParams[] = [
      {},
      { is_enabled: false },
      { name: "b", email: "c@d.co" },
      { type: "slack", slack: "https://hooks.slack.test/x" },
      { type: "internal_notification", name: "n" },
    ];
    expect(ok).toHaveLength(5);
    // @ts-expect-error switching type requires the new type's fields
    const switchMissing: NotificationHandlerUpdateParams = { type: "whatsapp" };
    // @ts-expect-error with a type, another type's field does not compile
    const switchOther: NotificationHandlerUpdateParams = {
      type: "slack",
      slack: "https://x",
      email: "a@b.co",
    };
    // @ts-expect-error unknown keys do not compile
    const unknownKey: NotificationHandlerUpdateParams = { colour: "red" };
    expect([switchMissing, switchOther, unknownKey]).toHaveLength(3);
  });

  it("list: every parameter of docs/api.md#list-parameters, typed", () => {
    const params: NotificationHandlerListParams = {
      search: "ops",
      search_by: "name",
      is_enabled: true,
      type: "webhook",
      datetime_field: "last_datetime",
      datetime_start: "2025-01-01 00:00:00",
      datetime_end: new Date(),
      order_by: "name",
      order_type: "ASC",
      page: 2,
      results_per_page: 50,
    };
    expect(Object.keys(params)).toHaveLength(11);
    // @ts-expect-error results_per_page is one of the allowed sizes
    const badSize: NotificationHandlerListParams = { results_per_page: 30 };
    // @ts-expect-error order_by is one of the allowed fields
    const badOrder: NotificationHandlerListParams = { order_by: "type" };
    expect([badSize, badOrder]).toHaveLength(2);
  });

  it("formats Date filters as Y-m-d H:i:s in UTC", () => {
    expect(formatDatetime(new Date(Date.UTC(2025, 0, 2, 3, 4, 5)))).toBe("2025-01-02 03:04:05");
  });
});
