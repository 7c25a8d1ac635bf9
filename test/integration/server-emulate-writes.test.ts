/**
 * `--emulate`: create, update and delete as deployed instances answer them and what they store,
 * each pinned to the item of docs/api.md#deployed ("Writes") it reproduces.
 */
import { describe, expect, it } from "vitest";
import type { EmulatedVersion } from "../../server";
import { type TestServer, serverForTest } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const VERSIONS = ["2023", "2025", "2026"] as const;
const DAY = 86_400_000; // 24 h

/** A server of the deployed version for the running test, and a key of it. */
async function start(version: EmulatedVersion): Promise<{ server: TestServer; key: string }> {
  const server = await serverForTest({ emulate: version });
  return { server, key: await server.key("alice") };
}

async function userOf(s: TestServer, key: string): Promise<number> {
  const principal = await s.repository.authenticate(key);
  if (principal === undefined) throw new Error("unknown key");
  return principal.userId;
}

async function stored(s: TestServer, key: string, id: number) {
  return s.repository.getHandler(await userOf(s, key), id);
}

async function create(s: TestServer, key: string, form: Record<string, string>): Promise<number> {
  const answer = await s.call("POST", PATH, { key, form });
  expect(answer.status, answer.text).toBe(201);
  const id = (answer.json as { data: { id: number } }).data.id;
  expect(typeof id).toBe("number");
  return id;
}

const TELEGRAM = { name: "Bot", type: "telegram", telegram: "123:abc", telegram_chat_id: "-100" };
const EMAIL = { name: "Ops", type: "email", email: "ops@example.com" };

describe("docs/api.md#deployed-create-answer: create answers 201 with {data:{id}} (2023) or the whole handler (2025 on)", () => {
  it("2023: {data:{id:N}}", async () => {
    const { server: s, key } = await start("2023");
    const answer = await s.call("POST", PATH, { key, form: TELEGRAM });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({ data: { id: 1 } });
  });

  it("2025: the whole handler, settings a JSON-encoded string", async () => {
    const { server: s, key } = await start("2025");
    const answer = await s.call("POST", PATH, { key, form: TELEGRAM });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({
      data: {
        id: 1,
        user_id: await userOf(s, key),
        type: "telegram",
        name: "Bot",
        settings: '{"telegram":"123:abc","telegram_chat_id":"-100"}',
        is_enabled: true,
        last_datetime: null,
        datetime: "2024-01-01 00:00:00",
      },
    });
  });

  it("2026: the whole handler; an email handler's settings carry activation_code, which reads never show", async () => {
    const { server: s, key } = await start("2026");
    const answer = await s.call("POST", PATH, { key, form: EMAIL });
    expect(answer.status).toBe(201);
    const data = (answer.json as { data: { id: number; settings: Record<string, unknown> } }).data;
    expect(data).toMatchObject({
      id: 1,
      user_id: await userOf(s, key),
      type: "email",
      name: "Ops",
      is_enabled: 2,
    });
    expect(data.settings).toEqual({
      email: "ops@example.com",
      email_is_confirmed: false,
      activation_code: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
    });
    const read = await s.call("GET", `${PATH}/1`, { key });
    expect((read.json as { data: { settings: unknown } }).data.settings).toEqual({
      email: "ops@example.com",
      email_is_confirmed: false,
    });
    const list = await s.call("GET", PATH, { key });
    expect(list.text).not.toContain("activation_code");
  });
});

describe('docs/api.md#deployed-2025-update-saves-nothing: 2025 updates save nothing and answer id null, type null, settings \'{"":""}\'', () => {
  it("2025", async () => {
    const { server: s, key } = await start("2025");
    const id = await create(s, key, TELEGRAM);
    const before = await stored(s, key, id);
    s.clock.advance(DAY);
    const answer = await s.call("POST", `${PATH}/${id}`, {
      key,
      form: { name: "Renamed", is_enabled: "0", telegram_chat_id: "@ops" },
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(
      /^\{"data":\{"id":null,"type":null,"settings":"\{\\"\\":\\"\\"\}","is_enabled":null,/,
    );
    expect(answer.json).toEqual({
      data: {
        id: null,
        type: null,
        settings: '{"":""}',
        is_enabled: null,
        user_id: null,
        name: null,
        last_datetime: null,
        datetime: null,
      },
    });
    // Nothing saved, last_datetime included.
    expect(await stored(s, key, id)).toEqual(before);
    expect(before?.lastDatetime).toBeNull();
  });
});

// The answer shows the damage and echoes the posted `is_enabled`.
describe('docs/api.md#deployed-2026-update-wipes-type: 2026 updates store type null and settings {"": ""}, save name and is_enabled', () => {
  it.each([
    ["1", 1, true],
    ["0", 0, false],
  ])("2026, is_enabled=%s", async (posted, echoed, enabled) => {
    const { server: s, key } = await start("2026");
    const id = await create(s, key, { ...TELEGRAM, is_enabled: posted === "1" ? "0" : "1" });
    s.clock.advance(DAY);
    const answer = await s.call("POST", `${PATH}/${id}`, {
      key,
      form: { name: "Renamed", is_enabled: posted, telegram_chat_id: "@ops" },
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      data: {
        id: String(id),
        user_id: await userOf(s, key),
        type: null,
        name: "Renamed",
        settings: { "": "" },
        is_enabled: echoed,
        last_datetime: "2024-01-02 00:00:00",
        datetime: "2024-01-01 00:00:00",
      },
    });
    expect(await stored(s, key, id)).toMatchObject({
      type: null,
      name: "Renamed",
      settings: { "": "" },
      isEnabled: enabled,
      lastDatetime: "2024-01-02 00:00:00",
    });
    const read = await s.call("GET", `${PATH}/${id}`, { key });
    expect(read.json).toMatchObject({ data: { type: null, settings: { "": "" }, is_enabled: echoed } });
  });

  it("2026: a name not sent stays", async () => {
    const { server: s, key } = await start("2026");
    const id = await create(s, key, TELEGRAM);
    await s.call("POST", `${PATH}/${id}`, { key, form: { is_enabled: "0" } });
    expect(await stored(s, key, id)).toMatchObject({ type: null, name: "Bot", isEnabled: false });
  });
});

// The id is the one from the path, as a string (docs/api.md#emulation-updates).
describe("docs/api.md#deployed-update-answer: 2023 updates work and answer 200 {data:{id}} with the id as a string", () => {
  it("2023: only what is sent changes", async () => {
    const { server: s, key } = await start("2023");
    const id = await create(s, key, TELEGRAM);
    const answer = await s.call("POST", `${PATH}/${id}`, {
      key,
      form: { name: "Renamed", telegram_chat_id: "@ops" },
    });
    expect([answer.status, answer.json]).toEqual([200, { data: { id: String(id) } }]);
    expect(await stored(s, key, id)).toMatchObject({
      type: "telegram",
      name: "Renamed",
      settings: { telegram: "123:abc", telegram_chat_id: "@ops" },
      isEnabled: true,
    });
  });

  it("2023: switching type needs the new type's fields and drops the old settings", async () => {
    const { server: s, key } = await start("2023");
    const id = await create(s, key, TELEGRAM);
    const incomplete = await s.call("POST", `${PATH}/${id}`, { key, form: { type: "email" } });
    expect(incomplete.status).toBe(401);
    const switched = await s.call("POST", `${PATH}/${id}`, {
      key,
      form: { type: "email", email: "ops@example.com" },
    });
    expect(switched.status).toBe(200);
    expect(await stored(s, key, id)).toMatchObject({ type: "email", settings: { email: "ops@example.com" } });
  });

  it("2023: a new email address waits for confirmation again", async () => {
    const { server: s, key } = await start("2023");
    const id = await create(s, key, EMAIL);
    const code = (await stored(s, key, id))?.activationCode;
    expect(code).toMatch(/^[0-9a-f]{32}$/);
    await s.call("POST", `${PATH}/${id}`, { key, form: { name: "Same address" } });
    expect((await stored(s, key, id))?.activationCode).toBe(code);
    await s.call("POST", `${PATH}/${id}`, { key, form: { email: "new@example.com" } });
    expect((await stored(s, key, id))?.activationCode).toMatch(/^[0-9a-f]{32}$/);
    expect((await stored(s, key, id))?.activationCode).not.toBe(code);
  });
});

describe("docs/api.md#deployed-delete-answer: delete answers 200 with an empty body and Content-Type application/json", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, TELEGRAM);
    const answer = await s.call("DELETE", `${PATH}/${id}`, { key });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe("");
    expect(answer.headers.get("content-type")).toMatch(/^application\/json(;|$)/);
    expect(await stored(s, key, id)).toBeUndefined();
    expect((await s.call("DELETE", `${PATH}/${id}`, { key })).status).toBe(404);
  });
});

// 2025 saves no update at all, so only 2023 and 2026 show it.
describe("docs/api.md#deployed-is-enabled-form: is_enabled on update must be 1/0; true is read as 0", () => {
  it.each([
    ["2023", "true", false],
    ["2023", "1", true],
    ["2023", "yes", false],
    ["2026", "true", false],
    ["2026", "1", true],
    ["2026", "false", false],
  ] as const)("%s: is_enabled=%s stores %s", async (version, posted, enabled) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, { ...TELEGRAM, is_enabled: enabled ? "0" : "1" });
    const answer = await s.call("POST", `${PATH}/${id}`, { key, form: { is_enabled: posted } });
    expect(answer.status).toBe(200);
    expect((await stored(s, key, id))?.isEnabled).toBe(enabled);
  });

  it.each(VERSIONS)("%s: create reads is_enabled the same way and defaults to enabled", async (version) => {
    const { server: s, key } = await start(version);
    const form = { name: "n", type: "internal_notification" };
    expect((await stored(s, key, await create(s, key, form)))?.isEnabled).toBe(true);
    expect((await stored(s, key, await create(s, key, { ...form, is_enabled: "true" })))?.isEnabled).toBe(
      false,
    );
    expect((await stored(s, key, await create(s, key, { ...form, is_enabled: "1" })))?.isEnabled).toBe(true);
  });
});

// Where an update saves anything: 2023 and 2026.
describe("docs/api.md#deployed-update-sets-last-datetime: updates set last_datetime", () => {
  it.each([
    ["2023", "2024-01-02 00:00:00"],
    ["2025", null],
    ["2026", "2024-01-02 00:00:00"],
  ] as const)("%s: last_datetime becomes %s", async (version, expected) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, TELEGRAM);
    s.clock.advance(DAY);
    expect((await s.call("POST", `${PATH}/${id}`, { key, form: { name: "x" } })).status).toBe(200);
    expect((await stored(s, key, id))?.lastDatetime).toBe(expected);
  });
});

// Cleaned at write time: the stored value is the cleaned one, and a value too long is cut, not refused.
describe("docs/api.md#deployed-value-cleaning: values are cleaned when written, and cut rather than refused", () => {
  it.each(VERSIONS)("%s: create", async (version) => {
    const { server: s, key } = await start(version);
    const name = `  <i>On-call</i> "primary" & 'backup' ${"n".repeat(200)}`;
    const id = await create(s, key, {
      name,
      type: "x",
      x_consumer_key: ` key<br/>"with" 'quotes' & tags `,
      x_consumer_secret: "s".repeat(600),
      x_access_token: "secret&<script>alert(1)</script>",
      x_access_token_secret: "t",
    });
    const record = await stored(s, key, id);
    expect(record?.name).toBe(
      `On-call &#34;primary&#34; & &#39;backup&#39; ${"n".repeat(200)}`.slice(0, 128),
    );
    expect(record?.settings).toEqual({
      x_consumer_key: "key&#34;with&#34; &#39;quotes&#39; & tags",
      x_consumer_secret: "s".repeat(512),
      x_access_token: "secret&alert(1)",
      x_access_token_secret: "t",
    });
  });

  it.each(VERSIONS)("%s: whatsapp and other phone numbers", async (version) => {
    const { server: s, key } = await start(version);
    const whatsapp = await create(s, key, { name: "w", type: "whatsapp", whatsapp: "+00447700900123" });
    expect((await stored(s, key, whatsapp))?.settings).toEqual({ whatsapp: "447700900123" });
    const twilio = await create(s, key, { name: "t", type: "twilio", twilio: " +15551234567 " });
    expect((await stored(s, key, twilio))?.settings).toEqual({ twilio: "+15551234567" });
  });

  it("2023: update", async () => {
    const { server: s, key } = await start("2023");
    const id = await create(s, key, TELEGRAM);
    await s.call("POST", `${PATH}/${id}`, { key, form: { name: `<b>It's</b> "new"` } });
    expect((await stored(s, key, id))?.name).toBe("It&#39;s &#34;new&#34;");
  });

  it("2026: update (the name is saved, cleaned)", async () => {
    const { server: s, key } = await start("2026");
    const id = await create(s, key, TELEGRAM);
    await s.call("POST", `${PATH}/${id}`, { key, form: { name: `<b>It's</b> "new"` } });
    expect((await stored(s, key, id))?.name).toBe("It&#39;s &#34;new&#34;");
  });
});

// docs/api.md#emulation-forms: deployed instances are PHP and read `$_POST`, so a field they do not
// use, a field of another type and a file part are ignored, and a repeated field counts by its last
// value (the reference server answers 400 for each).
describe("deployed forms: unknown, foreign and file fields ignored; the last of a repeated field wins", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server: s, key } = await start(version);
    const form = new FormData();
    form.append("name", "first");
    form.append("name", "last");
    form.append("type", "email");
    form.append("email", "ops@example.com");
    form.append("webhook", "https://example.com/hook");
    form.append("colour", "blue");
    form.append("email", new Blob(["x"]), "email.txt");
    const answer = await s.call("POST", PATH, { key, form });
    expect(answer.status, answer.text).toBe(201);
    const id = (answer.json as { data: { id: number } }).data.id;
    expect(await stored(s, key, id)).toMatchObject({
      name: "last",
      type: "email",
      settings: { email: "ops@example.com" },
    });
  });
});
