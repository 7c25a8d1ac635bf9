/** The reference server's handler endpoints as a client sees them: statuses, bodies, stored state. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FieldRule,
  HANDLER_TYPE_NAMES,
  type HandlerType,
  RULE_DESCRIPTIONS,
  fieldsOf,
} from "../../sdk/client/domain/catalog";
import {
  type Answer,
  type TestServer,
  errorsOf,
  parametersOf,
  startServer,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";

/** A valid value for every type-specific field. */
const VALID: Record<string, string> = {
  email: "ops@example.com",
  webhook: "http://hooks.example.com/notify",
  slack: "https://hooks.slack.com/services/T000/B000/XXXX",
  discord: "https://discord.com/api/webhooks/1/abc",
  telegram: "123456:ABC-def_1",
  telegram_chat_id: "-100123",
  microsoft_teams: "https://example.webhook.office.com/webhookb2/x",
  google_chat: "https://chat.googleapis.com/v1/spaces/AAA/messages",
  x_consumer_key: "consumer-key",
  x_consumer_secret: "consumer-secret",
  x_access_token: "access-token",
  x_access_token_secret: "access-token-secret",
  twilio: "+15551234567",
  twilio_call: "+15551234568",
  whatsapp: "+447700900123",
};

/** A value each rule refuses. */
const INVALID: Record<FieldRule, string> = {
  email: "not-an-email",
  "http-url": "ftp://files.example.com/x",
  "https-url": "http://hooks.example.com/plain-http",
  "telegram-token": "no-colon-token",
  "telegram-chat-id": "chat name",
  "non-empty": "   ",
  phone: "5551234567",
};

function fieldsFor(type: HandlerType): Record<string, string> {
  return Object.fromEntries(fieldsOf(type).map((f) => [f.field, VALID[f.field] ?? ""]));
}

function createForm(type: HandlerType, extra: Record<string, string> = {}): Record<string, string> {
  return { name: `${type} handler`, type, ...fieldsFor(type), ...extra };
}

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  key = await server.key("alice");
});
afterAll(() => server.close());

async function create(form: Record<string, string>, as = key): Promise<number> {
  const answer = await server.call("POST", PATH, { key: as, form });
  expect(answer.status, answer.text).toBe(201);
  return (answer.json as { data: { id: number } }).data.id;
}

async function read(id: number, as = key): Promise<Answer> {
  return server.call("GET", `${PATH}/${id}`, { key: as });
}

async function handler(id: number): Promise<Record<string, unknown>> {
  const answer = await read(id);
  expect(answer.status).toBe(200);
  return (answer.json as { data: Record<string, unknown> }).data;
}

describe("authentication", () => {
  it.each([
    ["no header", undefined],
    ["another scheme", "Basic YWxpY2U6c2VjcmV0"],
    ["Bearer without a token", "Bearer"],
    ["Bearer with two words", "Bearer one two"],
  ])("answers 401 'missing Bearer' for %s", async (_case, authorization) => {
    const answer = await server.call(
      "GET",
      PATH,
      authorization === undefined ? {} : { headers: { authorization } },
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.json).toEqual({
      errors: [{ title: "The request is missing the Bearer Authentication header.", status: 401 }],
    });
  });

  it.each([
    ["an unknown key", "nhk_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a token of another form", "abc.def"],
  ])("answers 401 'no access' for %s", async (_case, token) => {
    const answer = await server.call("GET", PATH, { key: token });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ errors: [{ title: "You do not have access to the API.", status: 401 }] });
  });

  it("accepts the scheme in any case", async () => {
    const answer = await server.call("GET", PATH, { headers: { authorization: `bearer ${key}` } });
    expect(answer.status).toBe(200);
  });

  it("stops accepting a key once it is revoked", async () => {
    const doomed = await server.key("alice");
    expect((await server.call("GET", PATH, { key: doomed })).status).toBe(200);
    expect(await server.repository.revokeApiKey(doomed, "2024-01-01 00:00:00")).toBe(true);
    const answer = await server.call("GET", PATH, { key: doomed });
    expect(answer.status).toBe(401);
    expect(errorsOf(answer)[0]?.title).toBe("You do not have access to the API.");
  });
});

describe("paths and methods", () => {
  it("answers other paths with a JSON 404", async () => {
    for (const path of ["/", "/api", "/api/notification-handler", `${PATH}/1/extra`]) {
      const answer = await server.call("GET", path, { key });
      expect(answer.status, path).toBe(404);
      expect(answer.json).toEqual({
        errors: [{ title: "The resource you are looking for does not exist.", status: 404 }],
      });
    }
  });

  it.each([
    ["PUT", PATH, "GET, HEAD, POST"],
    ["PATCH", `${PATH}/`, "GET, HEAD, POST"],
    ["DELETE", PATH, "GET, HEAD, POST"],
    ["OPTIONS", PATH, "GET, HEAD, POST"],
    ["PUT", `${PATH}/1`, "GET, HEAD, POST, DELETE"],
    ["PATCH", `${PATH}/1`, "GET, HEAD, POST, DELETE"],
    ["PROPFIND", `${PATH}/1`, "GET, HEAD, POST, DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
    const answer = await server.call(method, path, {
      key,
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe(allow);
    expect(errorsOf(answer)[0]).toMatchObject({
      title: "The method is not allowed on this resource.",
      status: 405,
    });
  });

  it("answers HEAD like GET, without a body", async () => {
    const answer = await server.call("HEAD", PATH, { key });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe("");
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("serves list and create with and without the trailing slash", async () => {
    for (const path of [PATH, `${PATH}/`]) {
      const created = await server.call("POST", path, { key, form: createForm("internal_notification") });
      expect(created.status).toBe(201);
      const listed = await server.call("GET", path, { key });
      expect(listed.status).toBe(200);
    }
  });
});

describe("create", () => {
  it.each(HANDLER_TYPE_NAMES)(
    "creates a %s handler from its fields and returns it as stored",
    async (type) => {
      const before = server.clock.now();
      const answer = await server.call("POST", PATH, { key, form: createForm(type) });
      expect(answer.status).toBe(201);
      expect(answer.json).toEqual({ data: { id: expect.any(Number) as number } });
      const { id } = (answer.json as { data: { id: number } }).data;
      expect(await handler(id)).toEqual({
        id,
        type,
        name: `${type} handler`,
        settings: fieldsFor(type),
        is_enabled: true,
        last_datetime: null,
        datetime: new Date(before).toISOString().slice(0, 19).replace("T", " "),
      });
    },
  );

  it.each(HANDLER_TYPE_NAMES.filter((t) => fieldsOf(t).length > 0))(
    "refuses a %s handler without each of its fields, naming the field",
    async (type) => {
      for (const spec of fieldsOf(type)) {
        const form = createForm(type);
        delete form[spec.field];
        const answer = await server.call("POST", PATH, { key, form });
        expect(answer.status).toBe(400);
        expect(parametersOf(answer)).toEqual([spec.field]);
        expect(errorsOf(answer)[0]?.detail).toBe(`${spec.field} is required for type ${type}.`);
      }
    },
  );

  it.each(
    HANDLER_TYPE_NAMES.flatMap((type) =>
      fieldsOf(type).map((spec) => [type, spec.field, spec.rule] as const),
    ),
  )("refuses a %s handler whose %s breaks its rule (%s)", async (type, field, rule) => {
    const answer = await server.call("POST", PATH, {
      key,
      form: createForm(type, { [field]: INVALID[rule] }),
    });
    expect(answer.status).toBe(400);
    expect(parametersOf(answer)).toEqual([field]);
    const expected = rule === "non-empty" ? "is required and must not be empty" : RULE_DESCRIPTIONS[rule];
    expect(errorsOf(answer)[0]).toEqual({
      title: "The request has an invalid form field.",
      status: 400,
      detail: `${field} ${expected}.`,
      source: { parameter: field },
    });
  });

  it("refuses values over 512 characters, and phone numbers over 32", async () => {
    const long = await server.call("POST", PATH, {
      key,
      form: createForm("x", { x_consumer_key: "k".repeat(513) }),
    });
    expect(long.status).toBe(400);
    expect(errorsOf(long)[0]?.detail).toBe("x_consumer_key must be at most 512 characters.");
    expect(await create(createForm("x", { x_consumer_key: "k".repeat(512) }))).toBeGreaterThan(0);

    const phone = await server.call("POST", PATH, {
      key,
      form: createForm("twilio", { twilio: `+${"1".repeat(32)}` }),
    });
    expect(phone.status).toBe(400);
    expect(errorsOf(phone)[0]?.detail).toBe("twilio must be at most 32 characters.");
  });

  it("refuses a field of another type and a field the API does not know, naming each", async () => {
    const answer = await server.call("POST", PATH, {
      key,
      form: createForm("email", { slack: VALID["slack"] ?? "", colour: "blue" }),
    });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)).toEqual([
      {
        title: "The request has an invalid form field.",
        status: 400,
        detail: "colour is not a field of this API.",
        source: { parameter: "colour" },
      },
      {
        title: "The request has an invalid form field.",
        status: 400,
        detail: "slack belongs to type slack, not email.",
        source: { parameter: "slack" },
      },
    ]);
  });

  it("requires name and type, and a known type", async () => {
    const empty = await server.call("POST", PATH, { key, form: {} });
    expect(empty.status).toBe(400);
    expect(parametersOf(empty)).toEqual(["name", "type"]);

    const unknown = await server.call("POST", PATH, { key, form: { name: "n", type: "pager" } });
    expect(unknown.status).toBe(400);
    expect(errorsOf(unknown)[0]?.detail).toBe(`type must be one of: ${HANDLER_TYPE_NAMES.join(", ")}.`);
  });

  it("trims the name and values, keeps them otherwise as sent, and bounds the name at 128", async () => {
    const raw = `  <b>"Tom" & 'Jerry'</b> ${"n".repeat(100)}  `;
    const id = await create({ name: raw, type: "email", email: "  ops@example.com\t" });
    const stored = await handler(id);
    expect(stored["name"]).toBe(raw.trim());
    expect(stored["settings"]).toEqual({ email: "ops@example.com" });

    expect(await create({ name: ` ${"a".repeat(128)} `, type: "internal_notification" })).toBeGreaterThan(id);
    for (const name of ["   ", "a".repeat(129)]) {
      const answer = await server.call("POST", PATH, { key, form: { name, type: "internal_notification" } });
      expect(answer.status).toBe(400);
      expect(parametersOf(answer)).toEqual(["name"]);
    }
  });

  it.each([
    ["1", true],
    ["true", true],
    ["0", false],
    ["false", false],
  ])("reads is_enabled=%s as %s", async (value, expected) => {
    const id = await create(createForm("internal_notification", { is_enabled: value }));
    expect((await handler(id))["is_enabled"]).toBe(expected);
  });

  it("refuses any other is_enabled", async () => {
    const answer = await server.call("POST", PATH, {
      key,
      form: createForm("internal_notification", { is_enabled: "yes" }),
    });
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)[0]).toMatchObject({
      detail: "is_enabled must be 1, 0, true or false.",
      source: { parameter: "is_enabled" },
    });
  });

  it("accepts application/x-www-form-urlencoded", async () => {
    const answer = await server.call("POST", PATH, { key, urlencoded: createForm("telegram") });
    expect(answer.status).toBe(201);
    const { id } = (answer.json as { data: { id: number } }).data;
    expect((await handler(id))["settings"]).toEqual(fieldsFor("telegram"));
  });

  it.each([
    ["application/json", JSON.stringify(createForm("email"))],
    ["text/plain", "name=x"],
    ["multipart/mixed; boundary=x", "--x--"],
  ])("answers 415 for %s, naming the two accepted types", async (contentType, body) => {
    const answer = await server.call("POST", PATH, { key, body, headers: { "content-type": contentType } });
    expect(answer.status).toBe(415);
    expect(errorsOf(answer)[0]?.title).toBe(
      "The content type must be multipart/form-data or application/x-www-form-urlencoded.",
    );
  });

  it("answers 415 to a create without a body", async () => {
    const answer = await server.call("POST", PATH, { key });
    expect(answer.status).toBe(415);
  });

  it("gives increasing ids and never reuses a deleted one", async () => {
    const first = await create(createForm("internal_notification"));
    expect((await server.call("DELETE", `${PATH}/${first}`, { key })).status).toBe(204);
    const second = await create(createForm("internal_notification"));
    expect(second).toBeGreaterThan(first);
  });
});

describe("read", () => {
  it.each(["abc", "0", "-1", "1.5", "1e3", "99999999999999999999", "9".repeat(300), "9".repeat(5000), "%20"])(
    "answers 404 for the id %s",
    async (id) => {
      const answer = await server.call("GET", `${PATH}/${id}`, { key });
      expect(answer.status).toBe(404);
      expect(errorsOf(answer)[0]?.title).toBe("The resource you are looking for does not exist.");
    },
  );

  it("answers 404 for an id that was never created", async () => {
    expect((await read(987_654)).status).toBe(404);
  });
});

describe("update", () => {
  it("changes the name, answers the id and stamps last_datetime", async () => {
    const id = await create(createForm("email"));
    const created = await handler(id);
    server.clock.advance(90_000); // 90 s later
    const answer = await server.call("POST", `${PATH}/${id}`, { key, form: { name: "  Renamed  " } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { id } });
    expect(await handler(id)).toEqual({
      ...created,
      name: "Renamed",
      last_datetime: new Date(server.clock.now()).toISOString().slice(0, 19).replace("T", " "),
    });
  });

  it("switches is_enabled with 0/1 and false/true", async () => {
    const id = await create(createForm("slack"));
    for (const [value, expected] of [
      ["0", false],
      ["1", true],
      ["false", false],
      ["true", true],
    ] as const) {
      expect((await server.call("POST", `${PATH}/${id}`, { key, form: { is_enabled: value } })).status).toBe(
        200,
      );
      expect((await handler(id))["is_enabled"]).toBe(expected);
    }
  });

  it("changes just the settings keys sent for the current type", async () => {
    const id = await create(createForm("telegram"));
    const answer = await server.call("POST", `${PATH}/${id}`, {
      key,
      form: { telegram_chat_id: "@ops_channel" },
    });
    expect(answer.status).toBe(200);
    expect((await handler(id))["settings"]).toEqual({
      telegram: VALID["telegram"],
      telegram_chat_id: "@ops_channel",
    });
  });

  it("accepts the current type sent again with some of its fields", async () => {
    const id = await create(createForm("x"));
    const answer = await server.call("POST", `${PATH}/${id}`, {
      key,
      form: { type: "x", x_access_token: "new" },
    });
    expect(answer.status).toBe(200);
    expect((await handler(id))["settings"]).toEqual({ ...fieldsFor("x"), x_access_token: "new" });
  });

  it("switches type when the new type's fields come along, dropping the old settings", async () => {
    const id = await create(createForm("telegram"));
    const answer = await server.call("POST", `${PATH}/${id}`, {
      key,
      form: { type: "email", email: "new@example.com" },
    });
    expect(answer.status).toBe(200);
    const stored = await handler(id);
    expect(stored["type"]).toBe("email");
    expect(stored["settings"]).toEqual({ email: "new@example.com" });
    expect(stored["name"]).toBe("telegram handler");

    expect(
      (await server.call("POST", `${PATH}/${id}`, { key, form: { type: "internal_notification" } })).status,
    ).toBe(200);
    expect(await handler(id)).toMatchObject({ type: "internal_notification", settings: {} });
  });

  it("refuses a type switch without all the new type's fields and changes nothing", async () => {
    const id = await create(createForm("email"));
    const before = await handler(id);
    const answer = await server.call("POST", `${PATH}/${id}`, {
      key,
      form: { type: "x", name: "changed", x_consumer_key: "k" },
    });
    expect(answer.status).toBe(400);
    expect(parametersOf(answer)).toEqual(["x_consumer_secret", "x_access_token", "x_access_token_secret"]);
    expect(await handler(id)).toEqual(before);
  });

  it("refuses a field of another type without a switch, and old fields with one", async () => {
    const id = await create(createForm("email"));
    const without = await server.call("POST", `${PATH}/${id}`, {
      key,
      form: { slack: VALID["slack"] ?? "" },
    });
    expect(without.status).toBe(400);
    expect(errorsOf(without)[0]).toMatchObject({
      detail: "slack belongs to type slack, not email; send type=slack with all its fields to switch.",
      source: { parameter: "slack" },
    });

    const withOld = await server.call("POST", `${PATH}/${id}`, {
      key,
      form: { type: "slack", slack: VALID["slack"] ?? "", email: "ops@example.com" },
    });
    expect(withOld.status).toBe(400);
    expect(parametersOf(withOld)).toEqual(["email"]);
    expect((await handler(id))["type"]).toBe("email");
  });

  it("refuses invalid values and leaves last_datetime untouched", async () => {
    const id = await create(createForm("webhook"));
    for (const form of [
      { name: " " },
      { webhook: "not a url" },
      { type: "pager" },
      { is_enabled: "2" },
      { id: "5" },
    ]) {
      const answer = await server.call("POST", `${PATH}/${id}`, { key, form });
      expect(answer.status, JSON.stringify(form)).toBe(400);
      expect(parametersOf(answer)).toEqual(Object.keys(form));
    }
    expect((await handler(id))["last_datetime"]).toBeNull();
  });

  it("accepts an empty update as a successful one", async () => {
    const id = await create(createForm("discord"));
    const answer = await server.call("POST", `${PATH}/${id}`, { key, form: new FormData() });
    expect(answer.status).toBe(200);
    expect(await handler(id)).toMatchObject({
      settings: fieldsFor("discord"),
      last_datetime: expect.any(String) as string,
    });
  });

  it("answers 404 for an unknown id, even with a bad body", async () => {
    expect((await server.call("POST", `${PATH}/987654`, { key, form: { name: "x" } })).status).toBe(404);
    const json = await server.call("POST", `${PATH}/987654`, {
      key,
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(json.status).toBe(404);
  });

  it("answers 415 for JSON", async () => {
    const id = await create(createForm("email"));
    const answer = await server.call("POST", `${PATH}/${id}`, {
      key,
      body: JSON.stringify({ name: "x" }),
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(415);
  });
});

describe("delete", () => {
  it("answers 204 with no body, after which the handler is gone", async () => {
    const id = await create(createForm("whatsapp"));
    const answer = await server.call("DELETE", `${PATH}/${id}`, { key });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expect((await read(id)).status).toBe(404);
    expect((await server.call("DELETE", `${PATH}/${id}`, { key })).status).toBe(404);
  });

  it("ignores a body sent with DELETE", async () => {
    const id = await create(createForm("whatsapp"));
    const answer = await server.call("DELETE", `${PATH}/${id}`, {
      key,
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(204);
  });
});

describe("tenancy", () => {
  it("hides a user's handlers from every other user", async () => {
    const mallory = await server.key("mallory");
    const id = await create(createForm("email"));
    const before = await handler(id);

    expect((await read(id, mallory)).status).toBe(404);
    expect(
      (await server.call("POST", `${PATH}/${id}`, { key: mallory, form: { name: "mine" } })).status,
    ).toBe(404);
    expect((await server.call("DELETE", `${PATH}/${id}`, { key: mallory })).status).toBe(404);
    const list = await server.call("GET", `${PATH}?results_per_page=1000`, { key: mallory });
    expect(list.json).toMatchObject({ data: [], meta: { total: 0 } });

    expect(await handler(id)).toEqual(before);
    const mine = await server.call("POST", PATH, { key: mallory, form: createForm("internal_notification") });
    expect(mine.status).toBe(201);
    const after = await server.call("GET", PATH, { key: mallory });
    expect((after.json as { meta: { total: number } }).meta.total).toBe(1);
  });
});
