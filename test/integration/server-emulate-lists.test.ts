/**
 * `--emulate`: list answers of deployed instances, each pinned to the item of docs/api.md#deployed
 * ("Lists") it reproduces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatedVersion } from "../../server";
import { type Answer, type TestServer, startServer } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const VERSIONS = ["2023", "2025", "2026"] as const;
const DAY = 86_400_000; // 24 h

const servers = new Map<EmulatedVersion, { server: TestServer; key: string }>();

/** Twelve handlers a day apart: ids 1 to 12, names "handler 01" to "handler 12", odd ids disabled webhooks. */
beforeAll(async () => {
  for (const version of VERSIONS) {
    const server = await startServer({ emulate: version, publicUrl: "https://api.example.com" });
    const key = await server.key("alice");
    for (let i = 1; i <= 12; i++) {
      const form =
        i % 2 === 1
          ? { type: "webhook", webhook: "https://example.com/hook", is_enabled: "0" }
          : { type: "internal_notification" };
      const answer = await server.call("POST", PATH, {
        key,
        form: { name: `handler ${String(i).padStart(2, "0")}`, ...form },
      });
      expect(answer.status).toBe(201);
      server.clock.advance(DAY);
    }
    servers.set(version, { server, key });
  }
});
afterAll(async () => {
  for (const { server } of servers.values()) await server.close();
});

async function list(version: EmulatedVersion, query: string): Promise<Answer> {
  const entry = servers.get(version);
  if (entry === undefined) throw new Error(`no server for ${version}`);
  const answer = await entry.server.call("GET", `${PATH}${query}`, { key: entry.key });
  expect(answer.status, answer.text).toBe(200);
  return answer;
}

interface ListBody {
  data: Array<{ id: number }>;
  meta: Record<string, unknown>;
  links: Record<string, string | null>;
}

function body(answer: Answer): ListBody {
  return answer.json as ListBody;
}

function ids(answer: Answer): number[] {
  return body(answer).data.map((h) => h.id);
}

const BASE = "https://api.example.com/api/notification-handlers";

describe("docs/api.md#deployed-list-meta: meta.total_results instead of meta.total; meta.page a string when page was sent", () => {
  it.each(VERSIONS)("%s", async (version) => {
    expect(body(await list(version, "")).meta).toEqual({
      page: 1,
      results_per_page: 25,
      total_results: 12,
      total_pages: 1,
    });
    expect(body(await list(version, "?page=2&results_per_page=10")).meta).toEqual({
      page: "2",
      results_per_page: 10,
      total_results: 12,
      total_pages: 2,
    });
  });
});

describe("docs/api.md#deployed-list-links: links look like .../api/notification-handlers?&page=1", () => {
  it.each(VERSIONS)("%s", async (version) => {
    expect(body(await list(version, "")).links).toEqual({
      first: `${BASE}?&page=1`,
      last: `${BASE}?&page=1`,
      next: null,
      prev: null,
      self: `${BASE}?&page=1`,
    });
    expect(body(await list(version, "?results_per_page=10&page=2")).links).toEqual({
      first: `${BASE}?results_per_page=10&page=1`,
      last: `${BASE}?results_per_page=10&page=2`,
      next: null,
      prev: `${BASE}?results_per_page=10&page=1`,
      self: `${BASE}?results_per_page=10&page=2`,
    });
  });
});

// The filters themselves still apply.
describe("docs/api.md#deployed-2026-links-drop-datetime: the 2026 links drop the datetime filters", () => {
  const query =
    "?type=webhook&datetime_field=datetime&datetime_start=2024-01-03%2000:00:00&results_per_page=10";
  it.each([
    [
      "2023",
      `${BASE}?type=webhook&datetime_field=datetime&datetime_start=2024-01-03+00%3A00%3A00&results_per_page=10&page=1`,
    ],
    ["2026", `${BASE}?type=webhook&results_per_page=10&page=1`],
  ] as const)("%s", async (version, self) => {
    const answer = await list(version, query);
    expect(body(answer).links["self"]).toBe(self);
    expect(ids(answer)).toEqual([11, 9, 7, 5, 3]);
  });
});

// A repeated parameter counts by its last value, as in PHP's `$_GET` (docs/api.md#emulation-lists).
describe("docs/api.md#deployed-list-lenient-parameters: invalid list parameters are ignored silently; an invalid results_per_page falls back to 100", () => {
  it.each(["2023", "2026"] as const)("%s", async (version) => {
    const invalid = await list(
      version,
      "?order_by=colour&order_type=sideways&type=fax&is_enabled=maybe&search_by=type&datetime_start=yesterday&page=0&colour=blue",
    );
    expect(ids(invalid)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(body(invalid).meta).toMatchObject({ page: "1", results_per_page: 25 });
    for (const size of ["7", "0", "abc", ""]) {
      expect(body(await list(version, `?results_per_page=${size}`)).meta).toMatchObject({
        results_per_page: 100,
      });
    }
    const mixed = await list(version, "?order_type=ASC&order_by=nonsense&is_enabled=0&is_enabled=1");
    expect(ids(mixed)).toEqual([2, 4, 6, 8, 10, 12]);
  });

  it("2025: an invalid results_per_page falls back to 100 too", async () => {
    expect(body(await list("2025", "?results_per_page=3")).meta).toMatchObject({ results_per_page: 100 });
  });
});

describe("docs/api.md#deployed-2025-list-ignores-filters: 2025 ignores every list filter, search and order (still paginates)", () => {
  const filters = [
    "?search=handler%2003",
    "?type=webhook",
    "?is_enabled=1",
    "?order_by=name&order_type=ASC",
    "?datetime_field=datetime&datetime_start=2024-01-10%2000:00:00",
  ];
  it.each(filters)("2025: %s", async (query) => {
    expect(ids(await list("2025", query))).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });

  it("2025: pages", async () => {
    const second = await list("2025", "?search=handler%2003&results_per_page=10&page=2");
    expect(ids(second)).toEqual([2, 1]);
    // Its links repeat only what it reads.
    expect(body(second).links["self"]).toBe(`${BASE}?results_per_page=10&page=2`);
  });

  it.each(["2023", "2026"] as const)("%s, for contrast, applies them", async (version) => {
    expect(ids(await list(version, "?search=handler%2003"))).toEqual([3]);
    expect(ids(await list(version, "?order_by=name&order_type=ASC&results_per_page=10"))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
  });
});
