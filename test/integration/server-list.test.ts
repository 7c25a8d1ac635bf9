/** Listing handlers: every filter, every order, pagination and links, as a client sees them. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EPOCH,
  type TestServer,
  errorsOf,
  parametersOf,
  startServer,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const HOUR = 3_600_000;

interface Handler {
  id: number;
  type: string;
  name: string;
  settings: Record<string, string>;
  is_enabled: boolean;
  last_datetime: string | null;
  datetime: string;
}

interface ListBody {
  data: Handler[];
  meta: { page: number; results_per_page: number; total: number; total_pages: number };
  links: { first: string; last: string; next: string | null; prev: string | null; self: string };
}

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

function at(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** A fresh user, so each test sees only its own handlers. */
let users = 0;
async function newUser(): Promise<string> {
  users += 1;
  return server.key(`user-${users}`);
}

async function create(key: string, name: string, extra: Record<string, string> = {}): Promise<number> {
  const answer = await server.call("POST", PATH, {
    key,
    form: { name, type: "internal_notification", ...extra },
  });
  expect(answer.status, answer.text).toBe(201);
  return (answer.json as { data: { id: number } }).data.id;
}

async function update(key: string, id: number, form: Record<string, string>): Promise<void> {
  expect((await server.call("POST", `${PATH}/${id}`, { key, form })).status).toBe(200);
}

async function list(key: string, query = ""): Promise<ListBody> {
  const answer = await server.call("GET", `${PATH}${query === "" ? "" : `?${query}`}`, { key });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as ListBody;
}

async function names(key: string, query: string): Promise<string[]> {
  return (await list(key, `results_per_page=1000&order_by=name&order_type=ASC&${query}`)).data.map(
    (h) => h.name,
  );
}

describe("search", () => {
  let key: string;
  beforeAll(async () => {
    key = await newUser();
    for (const name of [
      "Ops Email",
      "DEV ops",
      "100% uptime",
      "1000 uptime",
      "under_score",
      "underXscore",
      `it's "quoted"`,
      "back\\slash",
      "Éclair alerts",
      "plain",
    ]) {
      await create(key, name);
    }
  });

  it("matches a case-insensitive substring of the name", async () => {
    expect(await names(key, "search=OPS")).toEqual(["DEV ops", "Ops Email"]);
    expect(await names(key, "search=%C3%A9CLAIR")).toEqual(["Éclair alerts"]);
  });

  it("treats % and _ as plain characters", async () => {
    expect(await names(key, "search=%25")).toEqual(["100% uptime"]);
    expect(await names(key, "search=_")).toEqual(["under_score"]);
    expect(await names(key, "search=%5C")).toEqual(["back\\slash"]);
  });

  it("finds quotes, and SQL in a search is only text", async () => {
    expect(await names(key, "search='")).toEqual([`it's "quoted"`]);
    expect(await names(key, "search=%22quoted%22")).toEqual([`it's "quoted"`]);
    const injection = encodeURIComponent("'; DROP TABLE notification_handlers; --");
    expect(await names(key, `search=${injection}`)).toEqual([]);
    expect((await list(key)).meta.total).toBe(10);
  });

  it("searches the name by default and with search_by=name", async () => {
    expect(await names(key, "search=uptime&search_by=name")).toEqual(["100% uptime", "1000 uptime"]);
  });

  it("answers an empty page when nothing matches", async () => {
    const body = await list(key, "search=nothing-like-this");
    expect(body.data).toEqual([]);
    expect(body.meta).toEqual({ page: 1, results_per_page: 25, total: 0, total_pages: 1 });
  });
});

describe("filters", () => {
  let key: string;
  beforeAll(async () => {
    key = await newUser();
    await create(key, "mail on", { type: "email", email: "a@example.com" });
    await create(key, "mail off", { type: "email", email: "b@example.com", is_enabled: "0" });
    await create(key, "note on");
    await create(key, "note off", { is_enabled: "false" });
    await create(key, "slack on", { type: "slack", slack: "https://hooks.slack.com/x" });
  });

  it.each([
    ["is_enabled=1", ["mail on", "note on", "slack on"]],
    ["is_enabled=true", ["mail on", "note on", "slack on"]],
    ["is_enabled=0", ["mail off", "note off"]],
    ["is_enabled=false", ["mail off", "note off"]],
    ["type=email", ["mail off", "mail on"]],
    ["type=slack", ["slack on"]],
    ["type=webhook", []],
    ["type=email&is_enabled=0", ["mail off"]],
    ["type=internal_notification&search=ON", ["note on"]],
  ])("%s", async (query, expected) => {
    expect(await names(key, query)).toEqual(expected);
  });
});

describe("datetime range", () => {
  let key: string;
  const start = EPOCH + 10 * HOUR;
  beforeAll(async () => {
    key = await newUser();
    server.clock.advance(start - server.clock.now());
    for (const name of ["h0", "h1", "h2", "h3"]) {
      await create(key, name);
      server.clock.advance(HOUR);
    }
    // Update h3 then h1, an hour apart, so last_datetime orders them differently from datetime.
    const ids = (await list(key, "order_type=ASC")).data.map((h) => h.id);
    await update(key, ids[3] ?? 0, { name: "h3" });
    server.clock.advance(HOUR);
    await update(key, ids[1] ?? 0, { name: "h1" });
  });

  it("includes both ends on datetime, the default field", async () => {
    const range = `datetime_start=${encodeURIComponent(at(start + HOUR))}&datetime_end=${encodeURIComponent(at(start + 2 * HOUR))}`;
    expect(await names(key, range)).toEqual(["h1", "h2"]);
    expect(await names(key, `${range}&datetime_field=datetime`)).toEqual(["h1", "h2"]);
  });

  it("takes either bound alone", async () => {
    expect(await names(key, `datetime_start=${encodeURIComponent(at(start + 3 * HOUR))}`)).toEqual(["h3"]);
    expect(await names(key, `datetime_end=${encodeURIComponent(at(start))}`)).toEqual(["h0"]);
  });

  it("applies to last_datetime when asked, leaving out handlers never updated", async () => {
    const updatedFirst = at(start + 4 * HOUR);
    expect(
      await names(key, `datetime_field=last_datetime&datetime_start=${encodeURIComponent(at(start))}`),
    ).toEqual(["h1", "h3"]);
    expect(
      await names(
        key,
        `datetime_field=last_datetime&datetime_start=${encodeURIComponent(updatedFirst)}&datetime_end=${encodeURIComponent(updatedFirst)}`,
      ),
    ).toEqual(["h3"]);
  });

  it("accepts + for the space, as forms encode it", async () => {
    expect(await names(key, `datetime_start=${at(start + 3 * HOUR).replace(" ", "+")}`)).toEqual(["h3"]);
  });
});

describe("order", () => {
  let key: string;
  let all: Handler[];
  beforeAll(async () => {
    key = await newUser();
    // Names that tie case-insensitively, datetimes that tie, last_datetimes that are null or tie.
    const names = ["beta", "Alpha", "alpha", "gamma", "ALPHA", "Beta", "delta"];
    for (const [i, name] of names.entries()) {
      await create(key, name);
      if (i % 2 === 1) server.clock.advance(1000);
    }
    const ids = (await list(key, "order_type=ASC")).data.map((h) => h.id);
    for (const index of [4, 0, 2]) await update(key, ids[index] ?? 0, { is_enabled: "1" });
    server.clock.advance(1000);
    for (const index of [5, 1]) await update(key, ids[index] ?? 0, { is_enabled: "1" });
    all = (await list(key, "results_per_page=1000")).data;
  });

  const sortKey: Record<string, (h: Handler) => string | number> = {
    notification_handler_id: (h) => h.id,
    datetime: (h) => h.datetime,
    // SQLite puts null first in ascending order, last in descending.
    last_datetime: (h) => h.last_datetime ?? "",
    name: (h) => h.name.toLowerCase(),
  };

  function expected(orderBy: string, direction: "ASC" | "DESC"): number[] {
    const sign = direction === "ASC" ? 1 : -1;
    const keyOf = sortKey[orderBy] ?? ((h: Handler) => h.id);
    return [...all]
      .sort((a, b) => {
        const ka = keyOf(a);
        const kb = keyOf(b);
        if (ka !== kb) return ka < kb ? -sign : sign;
        return (a.id - b.id) * sign; // ties broken by id in the same direction
      })
      .map((h) => h.id);
  }

  it("defaults to notification_handler_id DESC", async () => {
    expect((await list(key)).data.map((h) => h.id)).toEqual(expected("notification_handler_id", "DESC"));
  });

  it.each(
    ["notification_handler_id", "datetime", "last_datetime", "name"].flatMap((orderBy) =>
      (["ASC", "DESC"] as const).map((direction) => [orderBy, direction] as const),
    ),
  )("orders by %s %s, ties by id in the same direction", async (orderBy, direction) => {
    const body = await list(key, `order_by=${orderBy}&order_type=${direction}`);
    expect(body.data.map((h) => h.id)).toEqual(expected(orderBy, direction));
  });

  it("reads order_type in any case", async () => {
    const body = await list(key, "order_by=name&order_type=asc");
    expect(body.data.map((h) => h.id)).toEqual(expected("name", "ASC"));
  });

  it("has ties to break in this data", () => {
    const lowered = all.map((h) => h.name.toLowerCase());
    expect(new Set(lowered).size).toBeLessThan(all.length);
    expect(new Set(all.map((h) => h.datetime)).size).toBeLessThan(all.length);
  });
});

describe("pagination", () => {
  let key: string;
  let ids: number[];
  beforeAll(async () => {
    key = await newUser();
    ids = [];
    // 35 handlers, 3 distinct names, all created in the same second: heavy ties on name and datetime.
    for (let i = 0; i < 35; i++) ids.push(await create(key, ["one", "two", "three"][i % 3] ?? ""));
  });

  it.each([
    "",
    ...["notification_handler_id", "datetime", "last_datetime", "name"].flatMap((orderBy) =>
      ["ASC", "DESC"].map((direction) => `&order_by=${orderBy}&order_type=${direction}`),
    ),
  ])("walks every handler exactly once with page sizes of 10 (%s)", async (order) => {
    const seen: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const body = await list(key, `results_per_page=10&page=${page}${order}`);
      expect(body.meta).toEqual({ page, results_per_page: 10, total: 35, total_pages: 4 });
      expect(body.data).toHaveLength(page < 4 ? 10 : 5);
      seen.push(...body.data.map((h) => h.id));
    }
    expect(new Set(seen).size).toBe(35);
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
  });

  it("defaults to page 1 of 25", async () => {
    const body = await list(key);
    expect(body.meta).toEqual({ page: 1, results_per_page: 25, total: 35, total_pages: 2 });
    expect(body.data.map((h) => h.id)).toEqual([...ids].reverse().slice(0, 25));
  });

  it.each([10, 25, 50, 100, 250, 500, 1000])("accepts results_per_page=%i", async (size) => {
    const body = await list(key, `results_per_page=${size}`);
    expect(body.meta).toEqual({
      page: 1,
      results_per_page: size,
      total: 35,
      total_pages: Math.ceil(35 / size),
    });
    expect(body.data).toHaveLength(Math.min(size, 35));
  });

  it("answers 200 with no data past the last page", async () => {
    for (const page of [5, 9_007_199_254_740_991]) {
      const body = await list(key, `results_per_page=10&page=${page}`);
      expect(body.data).toEqual([]);
      expect(body.meta).toEqual({ page, results_per_page: 10, total: 35, total_pages: 4 });
    }
  });
});

describe("links", () => {
  let key: string;
  beforeAll(async () => {
    key = await newUser();
    for (let i = 0; i < 30; i++) await create(key, `handler ${i}`);
  });

  it("repeats the request's filters, order and page size, then page=N", async () => {
    const query =
      "search=handler+1&type=internal_notification&order_by=name&order_type=ASC&results_per_page=10";
    const body = await list(key, `page=1&${query}`);
    expect(body.meta.total).toBe(11); // handler 1, 10..19
    const base = `${server.url}/api/notification-handlers?${query}`;
    expect(body.links).toEqual({
      first: `${base}&page=1`,
      last: `${base}&page=2`,
      next: `${base}&page=2`,
      prev: null,
      self: `${base}&page=1`,
    });
    const next = await server.call("GET", body.links.next?.slice(server.url.length) ?? "", { key });
    const second = next.json as ListBody;
    expect(second.meta.page).toBe(2);
    expect(second.links).toMatchObject({ next: null, prev: `${base}&page=1`, self: `${base}&page=2` });
  });

  it("leaves out parameters the request did not give, page size included", async () => {
    const body = await list(key, "page=2");
    const base = `${server.url}/api/notification-handlers?`;
    expect(body.links).toEqual({
      first: `${base}page=1`,
      last: `${base}page=2`,
      next: null,
      prev: `${base}page=1`,
      self: `${base}page=2`,
    });
  });

  it("repeats datetime filters and every other parameter", async () => {
    const query =
      "search=x&search_by=name&is_enabled=1&type=email&datetime_field=datetime&datetime_start=2024-01-01+00%3A00%3A00&datetime_end=2030-01-01+00%3A00%3A00&order_by=datetime&order_type=DESC&results_per_page=50";
    const body = await list(key, query);
    expect(body.links.self).toBe(`${server.url}/api/notification-handlers?${query}&page=1`);
  });

  it("points from past the end back to the last page", async () => {
    const body = await list(key, "page=7");
    expect(body.links.prev).toBe(`${server.url}/api/notification-handlers?page=2`);
    expect(body.links.next).toBeNull();
  });

  it("uses the configured public URL as the base", async () => {
    const other = await startServer({ publicUrl: "https://api.example.com/" });
    try {
      const answer = await other.call("GET", PATH, { key: await other.key() });
      expect((answer.json as ListBody).links.self).toBe(
        "https://api.example.com/api/notification-handlers?page=1",
      );
    } finally {
      await other.close();
    }
  });

  it("derives the base from the request's Host otherwise", async () => {
    const answer = await server.app.inject({
      method: "GET",
      url: PATH,
      headers: { authorization: `Bearer ${key}`, host: "handlers.internal:8443" },
    });
    expect(answer.json<ListBody>().links.first).toBe(
      "http://handlers.internal:8443/api/notification-handlers?page=1",
    );
  });
});

describe("invalid parameters", () => {
  let key: string;
  beforeAll(async () => {
    key = await newUser();
  });

  it.each([
    ["results_per_page=7", "results_per_page"],
    ["results_per_page=", "results_per_page"],
    ["results_per_page=25.0", "results_per_page"],
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=abc", "page"],
    ["page=1.5", "page"],
    ["page=99999999999999999999", "page"],
    ["order_by=id", "order_by"],
    ["order_type=up", "order_type"],
    ["datetime_start=2024-13-01+00:00:00", "datetime_start"],
    ["datetime_start=2024-02-30+00:00:00", "datetime_start"],
    ["datetime_end=2024-01-01", "datetime_end"],
    ["datetime_end=2024-01-01T00:00:00Z", "datetime_end"],
    ["datetime_field=created", "datetime_field"],
    ["type=pager", "type"],
    ["search_by=type", "search_by"],
    ["is_enabled=maybe", "is_enabled"],
    ["colour=blue", "colour"],
    ["page=1&page=2", "page"],
  ])("answers 400 for %s, naming %s", async (query, parameter) => {
    const answer = await server.call("GET", `${PATH}?${query}`, { key });
    expect(answer.status).toBe(400);
    expect(parametersOf(answer)).toEqual([parameter]);
    expect(errorsOf(answer)[0]?.title).toBe("The request has an invalid query parameter.");
  });

  it("names every invalid parameter of a request", async () => {
    const answer = await server.call("GET", `${PATH}?page=0&results_per_page=3&order_by=x`, { key });
    expect(answer.status).toBe(400);
    expect(parametersOf(answer).sort()).toEqual(["order_by", "page", "results_per_page"]);
  });
});
