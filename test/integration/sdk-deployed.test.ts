/** Each deviation of deployed instances (docs/api.md#deployed) read correctly, from scripted servers. */

import { describe, expect, it, onTestFinished } from "vitest";
import { NotificationHandlersClient, UnexpectedResponseError } from "../../sdk/client";
import {
  handler,
  json,
  scriptedServerForTest,
  virtualClock,
  type ScriptHandler,
} from "../support/servers/scripted-server";

async function setup(script: ScriptHandler) {
  const server = await scriptedServerForTest(script);
  const clock = virtualClock();
  const client = new NotificationHandlersClient({
    baseURL: server.url,
    apiKey: "k-deployed",
    sleep: clock.sleep,
    now: clock.now,
  });
  onTestFinished(() => client.close());
  return { server, client };
}

describe("create answers", () => {
  it("2023 / reference: {data:{id}} gives the id and no handler", async () => {
    const { client } = await setup((_c, res) => json(res, 201, { data: { id: 5 } }));
    expect(await client.notificationHandlers.create({ name: "a", type: "internal_notification" })).toEqual({
      id: 5,
      handler: null,
    });
  });

  it("2025: the whole handler with settings as a JSON-encoded string", async () => {
    const { client } = await setup((_c, res) =>
      json(res, 201, {
        data: {
          id: 6,
          user_id: 1,
          type: "telegram",
          name: "Bot",
          settings: '{"telegram":"123:abc","telegram_chat_id":"-100"}',
          is_enabled: true,
          last_datetime: null,
          datetime: "2025-05-01 10:00:00",
        },
      }),
    );
    const created = await client.notificationHandlers.create({
      name: "Bot",
      type: "telegram",
      telegram: "123:abc",
      telegram_chat_id: "-100",
    });
    expect(created).toEqual({
      id: 6,
      handler: {
        id: 6,
        type: "telegram",
        name: "Bot",
        settings: { telegram: "123:abc", telegram_chat_id: "-100" },
        is_enabled: true,
        is_pending: false,
        last_datetime: null,
        datetime: "2025-05-01 10:00:00",
      },
    });
  });

  it("2026: the whole handler with activation_code in settings and is_enabled 2", async () => {
    const { client } = await setup((_c, res) =>
      json(res, 201, {
        data: handler(7, { settings: { email: "a@b.co", activation_code: "x9y8" }, is_enabled: 2 }),
      }),
    );
    const { handler: h } = await client.notificationHandlers.create({
      name: "a",
      type: "email",
      email: "a@b.co",
    });
    expect(h?.settings).toEqual({ email: "a@b.co", activation_code: "x9y8" });
    expect(h?.is_enabled).toBe(true);
    expect(h?.is_pending).toBe(true);
  });

  it("an id sent as a numeric string", async () => {
    const { client } = await setup((_c, res) => json(res, 201, { data: { id: "12" } }));
    expect((await client.notificationHandlers.create({ name: "a", type: "internal_notification" })).id).toBe(
      12,
    );
  });

  it("an answer without a usable id says the handler was probably created", async () => {
    const { client } = await setup((_c, res) => json(res, 201, { data: { id: null } }));
    const err = await client.notificationHandlers
      .create({ name: "a", type: "internal_notification" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect((err as Error).message).toContain("the handler was probably created");
  });
});

describe("update answers (never trusted)", () => {
  it('2025: id null, type null, settings \'{"":""}\'', async () => {
    const data = {
      id: null,
      type: null,
      name: null,
      settings: '{"":""}',
      is_enabled: null,
      last_datetime: null,
      datetime: null,
    };
    const { client } = await setup((_c, res) => json(res, 200, { data }));
    expect(await client.notificationHandlers.update(3, { name: "n" })).toEqual({ id: null, raw: data });
  });

  it("2026: the damaged handler with its id as a string", async () => {
    const data = { id: "3", type: null, name: "n", settings: { "": "" }, is_enabled: 1 };
    const { client } = await setup((_c, res) => json(res, 200, { data }));
    expect(await client.notificationHandlers.update(3, { name: "n", is_enabled: true })).toEqual({
      id: 3,
      raw: data,
    });
  });

  it("reference: {data:{id}}", async () => {
    const { client } = await setup((_c, res) => json(res, 200, { data: { id: 3 } }));
    expect((await client.notificationHandlers.update(3, { name: "n" })).id).toBe(3);
  });
});

describe("delete answers", () => {
  it("deployed: 200 with an empty body and Content-Type: application/json", async () => {
    const { client, server } = await setup((_c, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end();
    });
    await expect(client.notificationHandlers.delete(4)).resolves.toBeUndefined();
    expect(server.calls[0]?.method).toBe("DELETE");
    expect(server.calls[0]?.url).toBe("/api/notification-handlers/4");
  });

  it("reference: 204 with no body", async () => {
    const { client } = await setup((_c, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(client.notificationHandlers.delete(4)).resolves.toBeUndefined();
  });
});

describe("reads", () => {
  it("normalizes is_enabled 0/1/2 and '0'/'1', settings strings, extra keys and fields", async () => {
    const rows: Record<string, Record<string, unknown>> = {
      "1": { is_enabled: 2, settings: '{"email":"a@b.co","email_is_confirmed":false}', user_id: 9 },
      "2": { is_enabled: "1" },
      "3": { is_enabled: "0" },
      "4": { is_enabled: 0 },
      "5": { type: "whatsapp", settings: { whatsapp: 15551234567 } },
      "6": { type: null, settings: { "": "" } },
      "7": { type: "push_subscriber_id", settings: { push_subscriber_id: "abc" } },
    };
    const { client } = await setup((call, res) => {
      const id = /(\d+)$/.exec(call.url)?.[1] ?? "0";
      json(res, 200, { data: handler(Number(id), rows[id]) });
    });
    const read = (id: number) => client.notificationHandlers.retrieve(id);
    const pending = await read(1);
    expect([pending.is_enabled, pending.is_pending]).toEqual([true, true]);
    expect(pending.settings).toEqual({ email: "a@b.co", email_is_confirmed: "false" });
    expect(pending).not.toHaveProperty("user_id");
    expect((await read(2)).is_enabled).toBe(true);
    expect((await read(3)).is_enabled).toBe(false);
    expect((await read(4)).is_enabled).toBe(false);
    expect((await read(5)).settings).toEqual({ whatsapp: "15551234567" });
    expect((await read(6)).type).toBeNull();
    expect((await read(7)).type).toBe("push_subscriber_id");
  });

  it("fills in a read's id when the server leaves it out", async () => {
    const { client } = await setup((_c, res) => json(res, 200, { data: handler(0, { id: null }) }));
    expect((await client.notificationHandlers.retrieve(44)).id).toBe(44);
  });
});

describe("lists", () => {
  it("reads meta.total_results (a deployed dialect), a string meta.page and ?&page= links", async () => {
    const { client } = await setup((_c, res) =>
      json(res, 200, {
        data: [handler(2), handler(1)],
        meta: { page: "1", results_per_page: "25", total_results: 2, total_pages: 1 },
        links: {
          first: "https://site.test/api/notification-handlers?&page=1",
          last: "https://site.test/api/notification-handlers?&page=1",
          next: null,
          prev: null,
          self: "https://site.test/api/notification-handlers?&page=1",
        },
      }),
    );
    const page = await client.notificationHandlers.list({ page: 1 });
    expect(page.meta).toEqual({
      page: 1,
      results_per_page: 25,
      total: 2,
      total_pages: 1,
      dialect: "deployed",
    });
    expect(page.links.first).toBe("https://site.test/api/notification-handlers?&page=1");
    expect(page.hasNextPage()).toBe(false);
  });

  it("keeps the datetime filters on later pages although 2026 links drop them", async () => {
    const { client, server } = await setup((call, res) => {
      const page = Number(new URL(call.url, "http://x").searchParams.get("page"));
      json(res, 200, {
        data: page === 1 ? [handler(4), handler(3)] : [handler(2), handler(1)],
        meta: { page: String(page), results_per_page: 2, total_results: 4, total_pages: 2 },
        links: { next: page === 1 ? "https://site.test/api/notification-handlers?&page=2" : null },
      });
    });
    const ids: number[] = [];
    for await (const h of client.notificationHandlers.list({
      datetime_field: "datetime",
      datetime_start: "2025-01-01 00:00:00",
      datetime_end: new Date(Date.UTC(2025, 11, 31, 23, 59, 59)),
      results_per_page: 10,
    })) {
      ids.push(h.id);
    }
    expect(ids).toEqual([4, 3, 2, 1]);
    const second = new URL(server.calls[1]?.url ?? "", "http://x");
    expect(second.pathname).toBe("/api/notification-handlers/");
    expect(Object.fromEntries(second.searchParams)).toEqual({
      datetime_field: "datetime",
      datetime_start: "2025-01-01 00:00:00",
      datetime_end: "2025-12-31 23:59:59",
      results_per_page: "10",
      page: "2",
    });
  });

  it("stops on a 2025 server that ignores page (every page the same)", async () => {
    const { client, server } = await setup((_c, res) =>
      json(res, 200, {
        data: [handler(3), handler(2), handler(1)],
        meta: { page: 1, results_per_page: 25, total_results: 300, total_pages: 12 },
      }),
    );
    const ids: number[] = [];
    for await (const h of client.notificationHandlers.list({ search: "ops" })) ids.push(h.id);
    expect(ids).toEqual([3, 2, 1]);
    expect(server.calls).toHaveLength(2);
  });

  it("skips an item without a usable id instead of failing the page", async () => {
    const { client } = await setup((_c, res) =>
      json(res, 200, { data: [handler(2), { ...handler(0), id: null }], meta: { total_pages: 1 } }),
    );
    const page = await client.notificationHandlers.list();
    expect(page.data.map((h) => h.id)).toEqual([2]);
    expect(page.skipped).toBe(1);
    expect(page.meta.dialect).toBeUndefined(); // neither total nor total_results: no shape to tell
  });

  it("a list answer without a data array is an UnexpectedResponseError", async () => {
    const { client } = await setup((_c, res) => json(res, 200, { items: [] }));
    await expect(client.notificationHandlers.list()).rejects.toBeInstanceOf(UnexpectedResponseError);
  });
});
