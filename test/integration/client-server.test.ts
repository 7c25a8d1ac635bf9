/**
 * The client against the real reference server (docs/api.md#endpoints) on 127.0.0.1, port 0: what the
 * client adds over the server's own tests (`server-handlers`, `server-list`, `server-protocol`): each
 * type's parameters encoded and its answers parsed, the flag sent as 1/0, pages followed with their
 * filters, each error status as its class, and pacing on the server's own rate-limit headers.
 */

import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type Repository } from "../../server";
import {
  AuthenticationError,
  HANDLER_TYPES,
  HANDLER_TYPE_NAMES,
  MethodNotAllowedError,
  NotFoundError,
  NotificationHandlersClient,
  PayloadTooLargeError,
  RateLimitError,
  ServiceNotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
  type FieldRule,
  type HandlerType,
  type NotificationHandlerRecord,
  type NotificationHandlerCreateParams,
  type NotificationHandlerListParams,
  type NotificationHandlerUpdateParams,
} from "../../sdk/client";
import { virtualClock, type VirtualClock } from "../support/servers/scripted-server";
import { openTestRepository } from "../support/servers/server-under-test";

/** Two valid values per rule, for create and for update. */
const SAMPLES: Record<FieldRule, readonly [string, string]> = {
  email: ["ops@example.com", "oncall@example.org"],
  "http-url": ["http://hooks.example.com/a", "https://hooks.example.com/b"],
  "https-url": ["https://hooks.example.com/a", "https://hooks.example.com/b?x=1&y=2"],
  "telegram-token": ["123456:ABC-def_ghi", "987654:zyx-WVU_tsr"],
  "telegram-chat-id": ["-100123456", "@ops_channel"],
  "non-empty": ["key-one", "key-two"],
  phone: ["+15551234567", "+447911123456"],
};

function fieldsFor(type: HandlerType, variant: 0 | 1): Record<string, string> {
  return Object.fromEntries(HANDLER_TYPES[type].fields.map((f) => [f.field, SAMPLES[f.rule][variant]]));
}

function createParams(type: HandlerType, name: string, variant: 0 | 1 = 0): NotificationHandlerCreateParams {
  return { name, type, ...fieldsFor(type, variant) } as NotificationHandlerCreateParams;
}

interface Env {
  app: FastifyInstance;
  repository: Repository;
  url: string;
  clock: VirtualClock;
  keys: { alice: string; bob: string };
}

async function startServer(rateLimit: number): Promise<Env> {
  const clock = virtualClock(Date.UTC(2024, 0, 1));
  const repository = await openTestRepository();
  const app = buildApp({ repository, now: clock.now, rateLimit });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const created = "2024-01-01 00:00:00";
  const keys = {
    alice: await repository.createApiKey(await repository.ensureUser("alice", created), created),
    bob: await repository.createApiKey(await repository.ensureUser("bob", created), created),
  };
  return { app, repository, url: `http://127.0.0.1:${address.port}`, clock, keys };
}

async function stopServer(env: Env): Promise<void> {
  await env.app.close();
  await env.repository.close();
}

let env: Env;
let alice: NotificationHandlersClient;

beforeAll(async () => {
  env = await startServer(0);
  alice = new NotificationHandlersClient({
    baseURL: env.url,
    apiKey: env.keys.alice,
    sleep: env.clock.sleep,
    now: env.clock.now,
  });
});

afterAll(async () => {
  await alice.close();
  await stopServer(env);
});

/** Every handler of a list, all pages. */
async function all(client: NotificationHandlersClient, params: NotificationHandlerListParams = {}) {
  const items: NotificationHandlerRecord[] = [];
  for await (const h of client.notificationHandlers.list(params)) items.push(h);
  return items;
}

describe("each of the twelve types: create, read, update, switch, delete", () => {
  it.each(HANDLER_TYPE_NAMES)("%s", async (type) => {
    const created = await alice.notificationHandlers.create(createParams(type, `  ${type} one  `));
    expect(created.handler).toBeNull(); // the reference server answers only the id
    expect(created.id).toBeGreaterThan(0);

    const read = await alice.notificationHandlers.retrieve(created.id);
    expect(read).toMatchObject({
      id: created.id,
      type,
      name: `${type} one`, // trimmed
      settings: fieldsFor(type, 0),
      is_enabled: true,
      is_pending: false,
      last_datetime: null,
    });
    expect(read.datetime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    // Update the same type's fields and the flag.
    const update = {
      name: `${type} two`,
      is_enabled: false,
      ...fieldsFor(type, 1),
    } as NotificationHandlerUpdateParams;
    expect(await alice.notificationHandlers.update(created.id, update)).toEqual({
      id: created.id,
      raw: { id: created.id },
    });
    const updated = await alice.notificationHandlers.retrieve(created.id);
    expect(updated).toMatchObject({ name: `${type} two`, settings: fieldsFor(type, 1), is_enabled: false });
    expect(updated.last_datetime).not.toBeNull();

    // Switch to another type: the new type's fields replace the old settings.
    const other = HANDLER_TYPE_NAMES[
      (HANDLER_TYPE_NAMES.indexOf(type) + 1) % HANDLER_TYPE_NAMES.length
    ] as HandlerType;
    await alice.notificationHandlers.update(created.id, {
      type: other,
      ...fieldsFor(other, 0),
    } as NotificationHandlerUpdateParams);
    const switched = await alice.notificationHandlers.retrieve(created.id);
    expect(switched).toMatchObject({ type: other, settings: fieldsFor(other, 0), name: `${type} two` });

    await alice.notificationHandlers.delete(created.id);
    await expect(alice.notificationHandlers.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(alice.notificationHandlers.delete(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("creates disabled, then enables with is_enabled sent as 1", async () => {
    const { id } = await alice.notificationHandlers.create({
      ...createParams("email", "flag"),
      is_enabled: false,
    });
    expect((await alice.notificationHandlers.retrieve(id)).is_enabled).toBe(false);
    await alice.notificationHandlers.update(id, { is_enabled: true });
    expect((await alice.notificationHandlers.retrieve(id)).is_enabled).toBe(true);
    await alice.notificationHandlers.delete(id);
  });
});

describe("lists", () => {
  let user: NotificationHandlersClient;
  let ids: number[];
  const names = ["alpha", "Bravo", "charlie", "DELTA 100%", "echo_x", "Foxtrot", "golf"];
  const enabled = (i: number): boolean => i % 3 !== 0;

  beforeAll(async () => {
    const created = "2024-01-01 00:00:00";
    const key = await env.repository.createApiKey(
      await env.repository.ensureUser("lister", created),
      created,
    );
    user = new NotificationHandlersClient({
      baseURL: env.url,
      apiKey: key,
      sleep: env.clock.sleep,
      now: env.clock.now,
    });
    ids = [];
    // 35 handlers of every type; names repeat, a third disabled.
    for (let i = 0; i < 35; i++) {
      const type = HANDLER_TYPE_NAMES[i % HANDLER_TYPE_NAMES.length] as HandlerType;
      const name = names[i % names.length] as string;
      ids.push(
        (await user.notificationHandlers.create({ ...createParams(type, name), is_enabled: enabled(i) })).id,
      );
    }
  });

  afterAll(async () => {
    await user.close();
  });

  it("default: newest first, 25 a page, meta and links as docs/api.md#list-response", async () => {
    const page = await user.notificationHandlers.list();
    expect(page.data.map((h) => h.id)).toEqual([...ids].reverse().slice(0, 25));
    expect(page.meta).toEqual({
      page: 1,
      results_per_page: 25,
      total: 35,
      total_pages: 2,
      dialect: "reference",
    });
    expect(page.links.next).toMatch(/\/api\/notification-handlers\?page=2$/);
    expect(page.links.prev).toBeNull();
    expect(page.hasNextPage()).toBe(true);
    const second = await page.getNextPage();
    expect(second.data.map((h) => h.id)).toEqual([...ids].reverse().slice(25));
    expect(second.hasNextPage()).toBe(false);
  });

  it("a page past the end is empty and has no next page", async () => {
    const page = await user.notificationHandlers.list({ page: 9 });
    expect(page.data).toEqual([]);
    expect(page.hasNextPage()).toBe(false);
  });

  it("for await walks every page", async () => {
    expect((await all(user, { results_per_page: 10 })).map((h) => h.id)).toEqual([...ids].reverse());
  });

  it("filters combine and carry to later pages", async () => {
    const found = await all(user, {
      search: "a",
      is_enabled: true,
      order_by: "name",
      order_type: "ASC",
      results_per_page: 10,
    });
    // What the server's rules (proved in server-list) give for this data: names holding an "a" in any
    // case, enabled, by name without case, ties by id.
    const expected = ids
      .map((id, i) => ({ id, i, name: (names[i % names.length] as string).toLowerCase() }))
      .filter(({ i, name }) => enabled(i) && name.includes("a"))
      .sort((a, b) => (a.name === b.name ? a.id - b.id : a.name < b.name ? -1 : 1))
      .map(({ id }) => id);
    expect(expected.length).toBeGreaterThan(10); // more than one page
    expect(found.map((h) => h.id)).toEqual(expected);
  });
});

describe("errors from the reference server", () => {
  it("400: an invalid field value is a ValidationError naming it", async () => {
    const err = await alice.notificationHandlers
      .create({ name: "bad", type: "email", email: "not-an-email" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).status).toBe(400);
    expect((err as ValidationError).errors[0]?.source?.parameter).toBe("email");
    expect((err as Error).message).toMatch(/^POST \/api\/notification-handlers: 400 .*email/);
  });

  it("400: an invalid list parameter", async () => {
    const err = await alice.notificationHandlers.list({ results_per_page: 30 as never }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors[0]?.source?.parameter).toBe("results_per_page");
  });

  it("401: an unknown key is an AuthenticationError", async () => {
    const client = new NotificationHandlersClient({ baseURL: env.url, apiKey: "nope-not-a-key" });
    try {
      const err = await client.notificationHandlers.retrieve(1).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect((err as Error).message).toBe(
        "GET /api/notification-handlers/1: 401 You do not have access to the API.",
      );
      expect((err as Error).message).not.toContain("nope-not-a-key");
    } finally {
      await client.close();
    }
  });

  it("404: a missing id is a NotFoundError", async () => {
    await expect(alice.notificationHandlers.retrieve(999_999)).rejects.toBeInstanceOf(NotFoundError);
    await expect(alice.notificationHandlers.update(999_999, { name: "x" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(alice.notificationHandlers.delete(999_999)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("404 on the collection path (a wrong path prefix) is a ServiceNotFoundError", async () => {
    const client = new NotificationHandlersClient({
      baseURL: `${env.url}/wrong/prefix`,
      apiKey: env.keys.alice,
    });
    try {
      await expect(client.notificationHandlers.list()).rejects.toBeInstanceOf(ServiceNotFoundError);
      await expect(
        client.notificationHandlers.create({ name: "x", type: "internal_notification" }),
      ).rejects.toBeInstanceOf(ServiceNotFoundError);
    } finally {
      await client.close();
    }
  });

  it("405: a method the path does not allow", async () => {
    const err = await alice
      .request({ method: "DELETE", path: "api/notification-handlers", retry: "idempotent" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MethodNotAllowedError);
    expect((err as MethodNotAllowedError).headers.allow).toBeDefined();
  });

  it("413: a body over 64 KiB", async () => {
    const err = await alice.notificationHandlers
      .create({
        name: "big",
        type: "x",
        x_consumer_key: "k".repeat(70_000),
        x_consumer_secret: "s",
        x_access_token: "t",
        x_access_token_secret: "u",
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
  });

  it("415: a POST that is not a form", async () => {
    const err = await alice
      .request({ method: "POST", path: "api/notification-handlers", retry: "create" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
  });
});

describe("rate limit of the reference server", () => {
  let limited: Env;

  beforeAll(async () => {
    limited = await startServer(5);
  });

  afterAll(async () => {
    await stopServer(limited);
  });

  it("the client paces 23 calls against 5 a minute with no 429, on the server's own clock", async () => {
    const client = new NotificationHandlersClient({
      baseURL: limited.url,
      apiKey: limited.keys.alice,
      sleep: limited.clock.sleep,
      now: limited.clock.now,
      maxRetries: 0,
    });
    try {
      for (let i = 0; i < 23; i++) await client.notificationHandlers.list();
      expect(client.stats).toMatchObject({ requests: 23, rateLimited: 0, pacedMs: 4 * 61_000 });
    } finally {
      await client.close();
    }
  });

  it("a client that did not spend the window gets a 429 (RateLimitError with retryAfter), or waits and retries", async () => {
    const spender = new NotificationHandlersClient({
      baseURL: limited.url,
      apiKey: limited.keys.bob,
      sleep: limited.clock.sleep,
      now: limited.clock.now,
    });
    const fresh = new NotificationHandlersClient({
      baseURL: limited.url,
      apiKey: limited.keys.bob,
      sleep: limited.clock.sleep,
      now: limited.clock.now,
      maxRetries: 0,
    });
    const patient = new NotificationHandlersClient({
      baseURL: limited.url,
      apiKey: limited.keys.bob,
      sleep: limited.clock.sleep,
      now: limited.clock.now,
    });
    try {
      for (let i = 0; i < 5; i++) await spender.notificationHandlers.list();
      const err = await fresh.notificationHandlers.list().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RateLimitError);
      expect((err as RateLimitError).retryAfter).toBeGreaterThan(0);
      await patient.notificationHandlers.list();
      expect(patient.stats).toMatchObject({ rateLimited: 1, retries: 1 });
    } finally {
      await Promise.all([spender.close(), fresh.close(), patient.close()]);
    }
  });
});
