/** Pagination across pages of a scripted server that pages like the reference server. */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotificationHandlersClient } from "../../sdk/client";
import {
  handler,
  json,
  startScriptedServer,
  virtualClock,
  type ScriptedServer,
} from "../support/servers/scripted-server";

const TOTAL = 53;
let server: ScriptedServer;
let client: NotificationHandlersClient;
let empty: ScriptedServer;
let emptyClient: NotificationHandlersClient;

beforeAll(async () => {
  server = await startScriptedServer((call, res) => {
    const url = new URL(call.url, "http://x");
    const page = Number(url.searchParams.get("page") ?? "1");
    const size = Number(url.searchParams.get("results_per_page") ?? "25");
    const ascending = url.searchParams.get("order_type") === "ASC";
    const ids = Array.from({ length: TOTAL }, (_, i) => (ascending ? i + 1 : TOTAL - i));
    const totalPages = Math.max(1, Math.ceil(TOTAL / size));
    json(res, 200, {
      data: ids.slice((page - 1) * size, page * size).map((id) => handler(id)),
      meta: { page, results_per_page: size, total: TOTAL, total_pages: totalPages },
      links: { next: page < totalPages ? `x?page=${page + 1}` : null },
    });
  });
  empty = await startScriptedServer((_c, res) =>
    json(res, 200, { data: [], meta: { page: 1, results_per_page: 25, total: 0, total_pages: 1 } }),
  );
  const clock = virtualClock();
  client = new NotificationHandlersClient({
    baseURL: server.url,
    apiKey: "k",
    sleep: clock.sleep,
    now: clock.now,
  });
  emptyClient = new NotificationHandlersClient({ baseURL: empty.url, apiKey: "k" });
});

afterAll(async () => {
  await Promise.all([client.close(), emptyClient.close()]);
  await Promise.all([server.close(), empty.close()]);
});

describe("list pagination", () => {
  it("await gives the first page with data, meta, links", async () => {
    const page = await client.notificationHandlers.list({ results_per_page: 10 });
    expect(page.data.map((h) => h.id)).toEqual([53, 52, 51, 50, 49, 48, 47, 46, 45, 44]);
    expect(page.meta).toEqual({
      page: 1,
      results_per_page: 10,
      total: 53,
      total_pages: 6,
      dialect: "reference",
    });
    expect(page.links.next).toBe("x?page=2");
    expect(page.hasNextPage()).toBe(true);
  });

  it("walks every page with getNextPage, without overlap or gap", async () => {
    let page = await client.notificationHandlers.list({ results_per_page: 10, order_type: "ASC" });
    const ids = page.data.map((h) => h.id);
    let pages = 1;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      ids.push(...page.data.map((h) => h.id));
      pages++;
    }
    expect(pages).toBe(6);
    expect(ids).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
  });

  it("for await over list() yields every handler of every page, each once", async () => {
    const before = server.calls.length;
    const ids: number[] = [];
    for await (const h of client.notificationHandlers.list({ results_per_page: 25 })) ids.push(h.id);
    expect(ids).toEqual(Array.from({ length: TOTAL }, (_, i) => TOTAL - i));
    expect(server.calls.length - before).toBe(3);
  });

  it("for await over an awaited page starts at that page; iterPages() yields the pages", async () => {
    const page = await client.notificationHandlers.list({ results_per_page: 25, page: 2 });
    const ids: number[] = [];
    for await (const h of page) ids.push(h.id);
    expect(ids).toEqual(Array.from({ length: TOTAL - 25 }, (_, i) => TOTAL - 25 - i));
    const sizes: number[] = [];
    for await (const p of page.iterPages()) sizes.push(p.data.length);
    expect(sizes).toEqual([25, 3]);
  });

  it("breaking out of the loop stops fetching", async () => {
    const before = server.calls.length;
    for await (const h of client.notificationHandlers.list({ results_per_page: 10 })) {
      if (h.id === 50) break;
    }
    expect(server.calls.length - before).toBe(1);
  });

  it("an empty list is one empty page", async () => {
    const page = await emptyClient.notificationHandlers.list();
    expect(page.data).toEqual([]);
    expect(page.hasNextPage()).toBe(false);
    const ids: number[] = [];
    for await (const h of emptyClient.notificationHandlers.list()) ids.push(h.id);
    expect(ids).toEqual([]);
  });

  it("sends every list parameter with its API name, booleans as 1/0", async () => {
    await client.notificationHandlers.list({
      search: "ops 100%",
      search_by: "name",
      is_enabled: false,
      type: "email",
      order_by: "name",
      order_type: "DESC",
      results_per_page: 50,
    });
    const last = new URL(server.calls.at(-1)?.url ?? "", "http://x");
    expect(Object.fromEntries(last.searchParams)).toEqual({
      search: "ops 100%",
      search_by: "name",
      is_enabled: "0",
      type: "email",
      order_by: "name",
      order_type: "DESC",
      results_per_page: "50",
      page: "1",
    });
  });
});
