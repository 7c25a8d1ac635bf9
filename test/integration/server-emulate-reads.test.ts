/**
 * `--emulate`: the handler as deployed instances show it in reads and lists, each pinned to the
 * item of docs/api.md#deployed ("Reads") it reproduces.
 */
import { describe, expect, it } from "vitest";
import type { EmulatedVersion } from "../../server";
import { type TestServer, serverForTest } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const VERSIONS = ["2023", "2025", "2026"] as const;

/** A server of the deployed version for the running test, and a key of it. */
async function start(version: EmulatedVersion): Promise<{ server: TestServer; key: string }> {
  const server = await serverForTest({ emulate: version });
  return { server, key: await server.key("alice") };
}

async function create(s: TestServer, key: string, form: Record<string, string>): Promise<number> {
  const answer = await s.call("POST", PATH, { key, form });
  expect(answer.status, answer.text).toBe(201);
  return (answer.json as { data: { id: number } }).data.id;
}

type Data = Record<string, unknown>;

async function read(s: TestServer, key: string, id: number): Promise<Data> {
  const answer = await s.call("GET", `${PATH}/${id}`, { key });
  expect(answer.status).toBe(200);
  return (answer.json as { data: Data }).data;
}

async function listed(s: TestServer, key: string): Promise<Data[]> {
  const answer = await s.call("GET", PATH, { key });
  expect(answer.status).toBe(200);
  return (answer.json as { data: Data[] }).data;
}

/** `settings` as an object, whether it arrived as one or as a JSON-encoded string. */
function settingsOf(data: Data): unknown {
  return typeof data["settings"] === "string" ? JSON.parse(data["settings"]) : data["settings"];
}

const EMAIL = { name: "Ops", type: "email", email: "ops@example.com" };
const HOOK = { name: "Hook", type: "webhook", webhook: "https://example.com/hook" };

// Emulated: every email handler created (or switched to email) waits for confirmation, and with no
// confirm endpoint it waits for good (docs/api.md#emulation-email-confirmation).
describe("docs/api.md#deployed-is-enabled-values: is_enabled is a boolean up to 2025 and 0/1/2 in 2026 (2 = email pending)", () => {
  it.each([
    ["2023", true, false, true],
    ["2025", true, false, true],
    ["2026", 1, 0, 2],
  ] as const)(
    "%s: enabled %j, disabled %j, pending email %j",
    async (version, enabled, disabled, pending) => {
      const { server: s, key } = await start(version);
      const on = await create(s, key, HOOK);
      const off = await create(s, key, { ...HOOK, is_enabled: "0" });
      const email = await create(s, key, EMAIL);
      const emailOff = await create(s, key, { ...EMAIL, is_enabled: "0" });
      expect((await read(s, key, on))["is_enabled"]).toBe(enabled);
      expect((await read(s, key, off))["is_enabled"]).toBe(disabled);
      expect((await read(s, key, email))["is_enabled"]).toBe(pending);
      expect((await read(s, key, emailOff))["is_enabled"]).toBe(disabled);
      expect((await listed(s, key)).map((h) => h["is_enabled"])).toEqual([
        disabled,
        pending,
        disabled,
        enabled,
      ]);
    },
  );

  it("2026: an email handler the reference server stored (no confirmation pending) reads 1", async () => {
    const { server: s, key } = await start("2026");
    const userId = (await s.repository.authenticate(key))?.userId ?? 0;
    const record = await s.repository.createHandler(
      userId,
      { type: "email", name: "Confirmed", settings: { email: "a@b.co" }, isEnabled: true },
      "2024-01-01 00:00:00",
    );
    expect(await read(s, key, record.id)).toMatchObject({
      is_enabled: 1,
      settings: { email: "a@b.co", email_is_confirmed: true },
    });
  });
});

// 2025 sends settings as a string in every answer (as its create answer does); 2023 and 2026 send an
// object (docs/api.md#emulation-settings-string).
describe("docs/api.md#deployed-settings-string: settings may arrive as a JSON-encoded string; email settings carry email_is_confirmed", () => {
  it.each([
    ["2023", "object"],
    ["2025", "string"],
    ["2026", "object"],
  ] as const)("%s: settings as %s in reads and lists", async (version, kind) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, EMAIL);
    const one = await read(s, key, id);
    const [inList] = await listed(s, key);
    for (const data of [one, inList ?? {}]) {
      expect(typeof data["settings"]).toBe(kind);
      expect(settingsOf(data)).toEqual({ email: "ops@example.com", email_is_confirmed: false });
    }
    const hook = await create(s, key, HOOK);
    expect(settingsOf(await read(s, key, hook))).toEqual({ webhook: "https://example.com/hook" });
  });
});

describe("docs/api.md#deployed-extra-fields: handlers carry extra fields (user_id)", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, HOOK);
    const userId = (await s.repository.authenticate(key))?.userId;
    const data = await read(s, key, id);
    expect(Object.keys(data)).toEqual([
      "id",
      "user_id",
      "type",
      "name",
      "settings",
      "is_enabled",
      "last_datetime",
      "datetime",
    ]);
    expect(data["user_id"]).toBe(userId);
    expect((await listed(s, key))[0]?.["user_id"]).toBe(userId);
  });
});

// The `+` and leading zeros are lost; the answer carries a JSON number, every digit kept.
describe("docs/api.md#deployed-whatsapp-integer: whatsapp is stored as an integer", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, { name: "w", type: "whatsapp", whatsapp: "+007700900123456" });
    const answer = await s.call("GET", `${PATH}/${id}`, { key });
    // 2025 escapes the quotes of its JSON-encoded settings.
    expect(answer.text).toMatch(/\\?"whatsapp\\?":7700900123456[,}]/);
    expect(settingsOf((answer.json as { data: Data }).data)).toEqual({ whatsapp: 7_700_900_123_456 });
  });

  it("keeps every digit of a number beyond 2^53 stored by another client", async () => {
    const { server: s, key } = await start("2026");
    const userId = (await s.repository.authenticate(key))?.userId ?? 0;
    const record = await s.repository.createHandler(
      userId,
      { type: "whatsapp", name: "w", settings: { whatsapp: "9223372036854775807" }, isEnabled: true },
      "2024-01-01 00:00:00",
    );
    const answer = await s.call("GET", `${PATH}/${record.id}`, { key });
    expect(answer.text).toContain('"whatsapp":9223372036854775807}');
  });
});

// What is stored is in server-emulate-writes.
describe("docs/api.md#deployed-value-cleaning: values come back cleaned", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, {
      name: ` <b>Ops</b> "on-call" & 'team' ${"x".repeat(150)}`,
      type: "webhook",
      webhook: "https://example.com/hook?a=1&b='2'",
    });
    const data = await read(s, key, id);
    expect(data["name"]).toBe(`Ops &#34;on-call&#34; & &#39;team&#39; ${"x".repeat(150)}`.slice(0, 128));
    expect(settingsOf(data)).toEqual({ webhook: "https://example.com/hook?a=1&b=&#39;2&#39;" });
  });
});

describe("docs/api.md#deployed-plain-secrets: secrets are returned in plain text", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server: s, key } = await start(version);
    const id = await create(s, key, {
      name: "Bot",
      type: "telegram",
      telegram: "123:secret",
      telegram_chat_id: "1",
    });
    expect(settingsOf(await read(s, key, id))).toEqual({ telegram: "123:secret", telegram_chat_id: "1" });
  });
});
