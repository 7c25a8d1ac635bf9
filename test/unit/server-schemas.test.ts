/** The server's request validation, without a server: forms and list queries. */
import { describe, expect, it } from "vitest";
import { HANDLER_TYPE_NAMES, fieldsOf } from "../../sdk/client/domain/catalog";
import type { HandlerData } from "../../server/repository";
import {
  type FormEntry,
  parseBoolean,
  parseHandlerCreate,
  parseHandlerUpdate,
  parseListQuery,
} from "../../server/schemas/notification-handlers";

function entries(fields: Record<string, string>): FormEntry[] {
  return Object.entries(fields).map(([name, value]) => ({ name, value, file: false }));
}

const telegram: HandlerData = {
  type: "telegram",
  name: "Ops",
  settings: { telegram: "1:abc", telegram_chat_id: "-1" },
  isEnabled: true,
};

describe("parseBoolean", () => {
  it.each([
    ["1", true],
    ["true", true],
    [" TRUE ", true],
    ["0", false],
    ["false", false],
    ["", undefined],
    ["yes", undefined],
    ["2", undefined],
  ])("%j -> %s", (raw, expected) => {
    expect(parseBoolean(raw)).toBe(expected);
  });
});

describe("parseHandlerCreate", () => {
  it("builds the handler with trimmed values, enabled by default", () => {
    expect(
      parseHandlerCreate(
        entries({ name: " Ops ", type: " telegram ", telegram: " 1:abc ", telegram_chat_id: "@ops" }),
      ),
    ).toEqual({
      ok: true,
      value: {
        type: "telegram",
        name: "Ops",
        settings: { telegram: "1:abc", telegram_chat_id: "@ops" },
        isEnabled: true,
      },
    });
  });

  it("orders settings as the catalog does, whatever the form order", () => {
    const result = parseHandlerCreate(
      entries({
        x_access_token_secret: "d",
        name: "n",
        x_consumer_key: "a",
        type: "x",
        x_access_token: "c",
        x_consumer_secret: "b",
      }),
    );
    expect(result.ok && Object.keys(result.value.settings)).toEqual(fieldsOf("x").map((f) => f.field));
  });

  it("needs no fields for internal_notification", () => {
    expect(
      parseHandlerCreate(entries({ name: "n", type: "internal_notification", is_enabled: "0" })),
    ).toEqual({
      ok: true,
      value: { type: "internal_notification", name: "n", settings: {}, isEnabled: false },
    });
  });

  it("reports every problem at once, each with its parameter", () => {
    const result = parseHandlerCreate([
      { name: "type", value: "email", file: false },
      { name: "email", value: "nope", file: false },
      { name: "slack", value: "https://x.example", file: false },
      { name: "avatar", value: "", file: true },
      { name: "is_enabled", value: "maybe", file: false },
    ]);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.parameter)).toEqual([
      "avatar",
      "name",
      "is_enabled",
      "email",
      "slack",
    ]);
  });

  it("does not report a refused field as missing too", () => {
    const result = parseHandlerCreate(
      entries({ type: "email", name: "n" }).concat(
        entries({ email: "a@b.co" }),
        entries({ email: "c@d.co" }),
      ),
    );
    expect(!result.ok && result.problems.map((p) => p.detail)).toEqual(["email must be sent only once."]);
  });

  it.each(HANDLER_TYPE_NAMES)("knows the fields of %s from the catalog", (type) => {
    const result = parseHandlerCreate(entries({ name: "n", type }));
    const missing = fieldsOf(type).map((f) => f.field);
    expect(result.ok ? [] : result.problems.map((p) => p.parameter)).toEqual(missing);
  });
});

describe("parseHandlerUpdate", () => {
  it("keeps everything not sent", () => {
    expect(parseHandlerUpdate([], telegram)).toEqual({ ok: true, value: telegram });
  });

  it("merges fields of the current type into its settings", () => {
    expect(parseHandlerUpdate(entries({ telegram_chat_id: "@new", is_enabled: "false" }), telegram)).toEqual({
      ok: true,
      value: { ...telegram, settings: { telegram: "1:abc", telegram_chat_id: "@new" }, isEnabled: false },
    });
  });

  it("replaces the settings on a type switch", () => {
    expect(parseHandlerUpdate(entries({ type: "whatsapp", whatsapp: "+441234567890" }), telegram)).toEqual({
      ok: true,
      value: { ...telegram, type: "whatsapp", settings: { whatsapp: "+441234567890" } },
    });
  });

  it("demands all the new type's fields and refuses the old ones on a switch", () => {
    const result = parseHandlerUpdate(
      entries({ type: "x", telegram: "1:abc", x_consumer_key: "k" }),
      telegram,
    );
    expect(!result.ok && result.problems.map((p) => [p.parameter, p.detail])).toEqual([
      ["telegram", "telegram belongs to type telegram, not x."],
      ["x_consumer_secret", "x_consumer_secret is required for type x."],
      ["x_access_token", "x_access_token is required for type x."],
      ["x_access_token_secret", "x_access_token_secret is required for type x."],
    ]);
  });

  it("still checks field values when the type sent is unknown", () => {
    const result = parseHandlerUpdate(entries({ type: "pager", telegram_chat_id: "not an id" }), telegram);
    expect(!result.ok && result.problems.map((p) => p.parameter)).toEqual(["type", "telegram_chat_id"]);
  });
});

describe("parseListQuery", () => {
  const query = (params: Record<string, string | string[]>) =>
    parseListQuery(
      Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])),
    );

  it("defaults to page 1 of 25, newest id first", () => {
    expect(query({})).toEqual({
      ok: true,
      value: {
        datetimeField: "datetime",
        orderBy: "notification_handler_id",
        orderType: "DESC",
        page: 1,
        resultsPerPage: 25,
        linkParams: [],
      },
    });
  });

  it("parses every parameter and keeps them, in canonical order, for links", () => {
    const result = query({
      page: "3",
      results_per_page: "50",
      order_type: "asc",
      order_by: "last_datetime",
      datetime_end: "2024-12-31 23:59:59",
      datetime_start: "2024-01-01 00:00:00",
      datetime_field: "last_datetime",
      type: "slack",
      is_enabled: "0",
      search_by: "name",
      search: "50%_off",
    });
    expect(result).toEqual({
      ok: true,
      value: {
        search: "50%_off",
        isEnabled: false,
        type: "slack",
        datetimeField: "last_datetime",
        datetimeStart: "2024-01-01 00:00:00",
        datetimeEnd: "2024-12-31 23:59:59",
        orderBy: "last_datetime",
        orderType: "ASC",
        page: 3,
        resultsPerPage: 50,
        linkParams: [
          ["search", "50%_off"],
          ["search_by", "name"],
          ["is_enabled", "0"],
          ["type", "slack"],
          ["datetime_field", "last_datetime"],
          ["datetime_start", "2024-01-01 00:00:00"],
          ["datetime_end", "2024-12-31 23:59:59"],
          ["order_by", "last_datetime"],
          ["order_type", "asc"],
          ["results_per_page", "50"],
        ],
      },
    });
  });

  it.each([
    ["page", "0"],
    ["page", "9007199254740992"],
    ["results_per_page", "20"],
    ["datetime_start", "2023-02-29 00:00:00"],
    ["datetime_end", "2024-01-01 24:00:00"],
    ["datetime_end", " 2024-01-01 00:00:00"],
    ["order_type", "random"],
  ])("refuses %s=%j", (name, value) => {
    const result = query({ [name]: value });
    expect(!result.ok && result.problems.map((p) => p.parameter)).toEqual([name]);
  });

  it("accepts a leap day and the largest page", () => {
    expect(query({ datetime_start: "2024-02-29 12:00:00", page: "9007199254740991" }).ok).toBe(true);
  });

  it("refuses a repeated parameter", () => {
    const result = query({ search: ["a", "b"] });
    expect(!result.ok && result.problems[0]?.detail).toBe("search must be given only once.");
  });
});
