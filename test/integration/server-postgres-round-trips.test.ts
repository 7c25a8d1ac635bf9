/**
 * How many times each kind of request waits on PostgreSQL, counted on the wire between the store and
 * the server (postgres-wire.ts): the figure that sets a request's latency and the database's load.
 * A change that adds a round trip to a request fails here. Runs in the integration-postgres project.
 */
import type { FastifyInstance } from "fastify";
import { describe, expect, it, onTestFinished } from "vitest";
import { type HandlerRecord, type Repository, buildApp } from "../../server";
import type { HandlerData } from "../../server/repository";
import { openRepository } from "../../server/open-repository";
import { type WireCounter, startWireCounter } from "../support/servers/postgres-wire";
import { type Answer, call, createTestDatabase, manualClock } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const NOW = "2024-01-01 00:00:00";

interface Setup {
  wire: WireCounter;
  repository: Repository;
  /** Starts an instance on the store; the default rate limit (60 a minute) unless told. */
  serve: (options?: { rateLimit?: number; emulate?: "2026" }) => Promise<string>;
  key: (user: string, admin?: boolean) => Promise<string>;
}

/** A fresh database behind a wire counter, and a store that reaches it through the counter. */
async function setUp(): Promise<Setup> {
  const wire = await startWireCounter(await createTestDatabase());
  onTestFinished(() => wire.close());
  const repository = await openRepository(wire.url);
  onTestFinished(() => repository.close());
  const clock = manualClock();
  return {
    wire,
    repository,
    serve: async (options = {}) => {
      const app: FastifyInstance = buildApp({ repository, now: clock.now, ...options });
      onTestFinished(() => app.close());
      await app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === "string") throw new Error("no TCP address");
      return `http://127.0.0.1:${address.port}`;
    },
    key: async (user, admin = false) =>
      repository.createApiKey(await repository.ensureUser(user, NOW), NOW, { admin }),
  };
}

/** The round trips of one request, after checking its status. */
async function roundTrips(
  wire: WireCounter,
  status: number,
  request: () => Promise<Answer>,
): Promise<string[]> {
  wire.take();
  const answer = await request();
  expect(answer.status, answer.text).toBe(status);
  return wire.take();
}

describe("round trips to PostgreSQL", () => {
  it("are pinned for each kind of request, the rate limit counted in the database", async () => {
    const { wire, serve, key } = await setUp();
    const url = await serve();
    const alice = await key("alice");
    const bob = await key("bob");
    const send = (
      status: number,
      method: string,
      path: string,
      options: Parameters<typeof call>[3] = { key: alice },
    ): Promise<string[]> => roundTrips(wire, status, () => call(url, method, path, options));

    const create = await send(201, "POST", PATH, {
      key: alice,
      form: { name: "pager", type: "email", email: "ops@example.com" },
    });
    const created = await call(url, "POST", PATH, {
      key: alice,
      form: { name: "other", type: "internal_notification" },
    });
    const id = (created.json as { data: { id: number } }).data.id;
    const trips: Record<string, string[]> = {
      create,
      read: await send(200, "GET", `${PATH}/${id}`),
      list: await send(200, "GET", `${PATH}?results_per_page=10&order_by=name`),
      "list, a page past the end": await send(200, "GET", `${PATH}?page=9`),
      "list, nothing matches": await send(200, "GET", `${PATH}?type=slack`),
      update: await send(200, "POST", `${PATH}/${id}`, { key: alice, form: { name: "renamed" } }),
      delete: await send(204, "DELETE", `${PATH}/${id}`),
      "read of a missing handler": await send(404, "GET", `${PATH}/${id}`),
      "update of another user's handler": await send(404, "POST", `${PATH}/${id - 1}`, {
        key: bob,
        form: { name: "taken" },
      }),
      // The lookup part of alice's key with another secret.
      "unknown key": await send(401, "GET", PATH, {
        key: `${alice.slice(0, -1)}${alice.endsWith("A") ? "B" : "A"}`,
      }),
      "no key": await send(401, "GET", PATH, {}),
    };
    const counts = Object.fromEntries(Object.entries(trips).map(([kind, list]) => [kind, list.length]));
    // The statements are in the message, to show where a new round trip came from.
    expect(counts, JSON.stringify(trips, null, 2)).toEqual({
      create: 2,
      read: 2,
      list: 2,
      // An empty page past the first: only a count says how many there are.
      "list, a page past the end": 3,
      "list, nothing matches": 2,
      update: 3,
      delete: 3,
      "read of a missing handler": 2,
      "update of another user's handler": 2,
      "unknown key": 1,
      "no key": 0,
    });
  });

  it("are pinned for a request over the limit, without a limit and for an unlimited key", async () => {
    const { wire, repository, serve, key } = await setUp();
    const limited = await serve();
    const unlimited = await serve({ rateLimit: 0 });
    const emulated = await serve({ emulate: "2026" });
    const alice = await key("alice");
    const root = await key("root", true);
    // A handler each, so every list reads a page.
    for (const user of ["alice", "root"]) {
      const data = { type: "internal_notification", name: user, settings: {}, isEnabled: true };
      await repository.createHandler(await repository.ensureUser(user, NOW), data, NOW);
    }
    for (let i = 0; i < 60; i++) expect((await call(limited, "GET", PATH, { key: alice })).status).toBe(200);

    const trips = {
      "over the limit": await roundTrips(wire, 429, () => call(limited, "GET", PATH, { key: alice })),
      "list, no limit": await roundTrips(wire, 200, () => call(unlimited, "GET", PATH, { key: alice })),
      "list, admin key on an emulated site": await roundTrips(wire, 200, () =>
        call(emulated, "GET", PATH, { key: root }),
      ),
    };
    const counts = Object.fromEntries(Object.entries(trips).map(([kind, list]) => [kind, list.length]));
    expect(counts, JSON.stringify(trips, null, 2)).toEqual({
      "over the limit": 1,
      "list, no limit": 2,
      "list, admin key on an emulated site": 2,
    });
  });

  it("are one for an update over the handler as read, more when it changed since, and none is lost", async () => {
    const { wire, repository } = await setUp();
    const alice = await repository.ensureUser("alice", NOW);
    const data: HandlerData = { type: "internal_notification", name: "a", settings: {}, isEnabled: true };
    const { id } = await repository.createHandler(alice, data, NOW);
    const append = (letter: string) => (current: HandlerRecord) => ({ ...data, name: current.name + letter });

    const seen = await repository.getHandler(alice, id);
    wire.take();
    expect((await repository.updateHandler(alice, id, append("b"), NOW, seen))?.name).toBe("ab");
    const overSeen = wire.take();
    // `seen` is now out of date: the update reads the handler again rather than write over "ab".
    expect((await repository.updateHandler(alice, id, append("c"), NOW, seen))?.name).toBe("abc");
    const overOutdated = wire.take();
    expect((await repository.updateHandler(alice, id, append("d"), NOW))?.name).toBe("abcd");
    const unseen = wire.take();
    // Deleted after it was read: nothing to update.
    const last = await repository.getHandler(alice, id);
    await repository.deleteHandler(alice, id);
    wire.take();
    expect(await repository.updateHandler(alice, id, append("e"), NOW, last)).toBeUndefined();
    const overDeleted = wire.take();

    const trips = { overSeen, overOutdated, unseen, overDeleted };
    const counts = Object.fromEntries(Object.entries(trips).map(([kind, list]) => [kind, list.length]));
    // Out of date: the compare-and-set, then BEGIN, the locked read, the write, COMMIT.
    expect(counts, JSON.stringify(trips, null, 2)).toEqual({
      overSeen: 1,
      overOutdated: 5,
      unseen: 4,
      overDeleted: 4,
    });
  });
});
