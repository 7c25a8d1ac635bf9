/**
 * The store's contract, the same suite on both stores (SQLite here, PostgreSQL in the
 * integration-postgres project): users, keys and their revocation, every handler operation, lists
 * with their filters, orders, pages and totals, ownership of rows, updates that read and write
 * atomically, and the rate-limit budget of a key.
 */
import { describe, expect, it } from "vitest";
import type { HandlerData, HandlerListFilter, Repository } from "../../server/repository";
import { STORE, openTestRepository } from "../support/servers/server-under-test";

const NOW = "2024-01-01 00:00:00";

describe(`the ${STORE} store`, () => {
  it("is the store under test", async () => {
    const repository = await openTestRepository();
    try {
      expect(repository.kind).toBe(STORE);
      await expect(repository.ping()).resolves.toBeUndefined();
    } finally {
      await repository.close();
    }
    await expect(repository.ping()).rejects.toThrow();
  });

  it("authenticates keys of their own user, until revoked", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      expect(await repository.ensureUser("alice", NOW)).toBe(alice);
      const bob = await repository.ensureUser("bob", NOW);
      const aliceKey = await repository.createApiKey(alice, NOW);
      const bobKey = await repository.createApiKey(bob, NOW);
      expect((await repository.authenticate(aliceKey))?.userId).toBe(alice);
      expect((await repository.authenticate(bobKey))?.userId).toBe(bob);
      // Right lookup part, wrong secret.
      const forged = `${aliceKey.slice(0, 21)}${"A".repeat(43)}`;
      expect(await repository.authenticate(forged)).toBeUndefined();
      expect(await repository.revokeApiKey(aliceKey, NOW)).toBe(true);
      expect(await repository.authenticate(aliceKey)).toBeUndefined();
      expect(await repository.revokeApiKey(aliceKey, NOW)).toBe(false);
    } finally {
      await repository.close();
    }
  });

  it("keeps handlers to one user: others can neither read, change, delete nor count them", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const bob = await repository.ensureUser("bob", NOW);
      const data = { type: "email", name: "n", settings: { email: "a@b.co" }, isEnabled: true };
      const record = await repository.createHandler(alice, data, NOW);
      expect(await repository.getHandler(bob, record.id)).toBeUndefined();
      expect(
        await repository.updateHandler(bob, record.id, () => ({ ...data, name: "x" }), NOW),
      ).toBeUndefined();
      expect(await repository.deleteHandler(bob, record.id)).toBeUndefined();
      const filter = { datetimeField: "datetime", orderBy: "name", orderType: "ASC" } as const;
      expect(await repository.listHandlers(bob, filter, 10, 0)).toEqual({ records: [], total: 0 });
      expect((await repository.listHandlers(alice, filter, 10, 0)).total).toBe(1);
      expect(await repository.getHandler(alice, record.id)).toEqual(record);
      expect(await repository.deleteHandler(alice, record.id)).toEqual(record);
      expect(await repository.getHandler(alice, record.id)).toBeUndefined();
    } finally {
      await repository.close();
    }
  });

  it("applies concurrent updates one after another: none is lost", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const data: HandlerData = { type: "internal_notification", name: "", settings: {}, isEnabled: true };
      const { id } = await repository.createHandler(alice, data, NOW);
      // Each update appends its letter to what it read: a lost update would drop a letter. Half of
      // them are handed the handler as read before any of them, as a request's hook hands it.
      const seen = await repository.getHandler(alice, id);
      const letters = "abcdefghijklmnopqrst".split("");
      await Promise.all(
        letters.map((letter, i) =>
          repository.updateHandler(
            alice,
            id,
            (current) => ({ ...data, name: current.name + letter }),
            NOW,
            i % 2 === 0 ? seen : undefined,
          ),
        ),
      );
      const stored = await repository.getHandler(alice, id);
      expect([...(stored?.name ?? "")].sort()).toEqual(letters);
    } finally {
      await repository.close();
    }
  });

  it("stores nothing when the change throws or gives nothing", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const data: HandlerData = {
        type: "internal_notification",
        name: "kept",
        settings: {},
        isEnabled: true,
      };
      const record = await repository.createHandler(alice, data, NOW);
      const refuse = (): never => {
        throw new Error("refused");
      };
      await expect(repository.updateHandler(alice, record.id, refuse, "2024-01-02 00:00:00")).rejects.toThrow(
        "refused",
      );
      expect(
        await repository.updateHandler(alice, record.id, () => undefined, "2024-01-02 00:00:00"),
      ).toEqual(record);
      expect(await repository.getHandler(alice, record.id)).toEqual(record);
    } finally {
      await repository.close();
    }
  });

  it("creates, reads, updates and deletes a handler, with its times and ids", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const data: HandlerData = {
        type: "email",
        name: "Ops",
        settings: { email: "a@b.co" },
        isEnabled: true,
      };
      const first = await repository.createHandler(alice, data, NOW);
      const second = await repository.createHandler(alice, { ...data, name: "Dev" }, NOW);
      expect(first).toMatchObject({
        userId: alice,
        ...data,
        datetime: NOW,
        lastDatetime: null,
        activationCode: null,
      });
      expect(second.id).toBeGreaterThan(first.id);

      const later = "2024-01-02 03:04:05";
      const updated = await repository.updateHandler(
        alice,
        first.id,
        (current) => ({ ...current, name: "Ops (renamed)", isEnabled: false, activationCode: "1234" }),
        later,
      );
      expect(updated).toMatchObject({
        id: first.id,
        name: "Ops (renamed)",
        isEnabled: false,
        activationCode: "1234",
      });
      expect(updated).toMatchObject({ datetime: NOW, lastDatetime: later });
      expect(await repository.getHandler(alice, first.id)).toEqual(updated);
      // A type wiped by an emulated defective update is stored as null.
      const wiped = await repository.updateHandler(
        alice,
        second.id,
        (c) => ({ ...c, type: null, settings: {} }),
        later,
      );
      expect(wiped).toMatchObject({ type: null, settings: {} });

      expect(await repository.deleteHandler(alice, first.id)).toEqual(updated);
      expect(await repository.deleteHandler(alice, first.id)).toBeUndefined();
      expect(await repository.updateHandler(alice, first.id, (c) => c, later)).toBeUndefined();
    } finally {
      await repository.close();
    }
  });

  it("lists with every filter and order, in pages, with the count of all matches", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const make = (name: string, type: string, isEnabled: boolean, day: string): Promise<number> =>
        repository
          .createHandler(alice, { type, name, settings: {}, isEnabled }, `2024-01-${day} 00:00:00`)
          .then((r) => r.id);
      const ids = [
        await make("Ops email", "email", true, "01"),
        await make("dev_team", "slack", false, "02"),
        await make("Ops 100% pager", "twilio", true, "03"),
        await make("zeta", "email", false, "04"),
      ];
      await repository.updateHandler(alice, ids[3]!, (c) => c, "2024-02-01 00:00:00");
      const base: HandlerListFilter = {
        datetimeField: "datetime",
        orderBy: "notification_handler_id",
        orderType: "ASC",
      };
      const list = async (
        filter: Partial<HandlerListFilter>,
        limit = 10,
        offset = 0,
      ): Promise<[number[], number]> => {
        const { records, total } = await repository.listHandlers(
          alice,
          { ...base, ...filter },
          limit,
          offset,
        );
        return [records.map((r) => r.id), total];
      };
      const [a, b, c, d] = ids as [number, number, number, number];
      expect(await list({})).toEqual([[a, b, c, d], 4]);
      expect(await list({ orderType: "DESC" })).toEqual([[d, c, b, a], 4]);
      expect(await list({ orderBy: "name" })).toEqual([[b, c, a, d], 4]);
      expect(await list({ search: "OPS" })).toEqual([[a, c], 2]);
      // `%` and `_` are plain characters, not patterns.
      expect(await list({ search: "100%" })).toEqual([[c], 1]);
      expect(await list({ search: "o_s" })).toEqual([[], 0]);
      expect(await list({ type: "email" })).toEqual([[a, d], 2]);
      expect(await list({ isEnabled: false })).toEqual([[b, d], 2]);
      expect(
        await list({ datetimeStart: "2024-01-02 00:00:00", datetimeEnd: "2024-01-03 00:00:00" }),
      ).toEqual([[b, c], 2]);
      expect(await list({ datetimeField: "last_datetime", datetimeStart: "2024-01-15 00:00:00" })).toEqual([
        [d],
        1,
      ]);
      expect(await list({ type: "email", isEnabled: true, search: "ops" })).toEqual([[a], 1]);
      // Pages: no overlap, no gap, the total on every page, and past the end.
      expect(await list({}, 3, 0)).toEqual([[a, b, c], 4]);
      expect(await list({}, 3, 3)).toEqual([[d], 4]);
      expect(await list({}, 3, 6)).toEqual([[], 4]);
    } finally {
      await repository.close();
    }
  });

  it("admits a key with its request counted; refuses a wrong one and counts nothing for it", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const key = await repository.createApiKey(alice, NOW);
      const admin = await repository.createApiKey(alice, NOW, { admin: true });
      let now = 1_700_000_000_000;
      const limiter = repository.rateLimiter(3, () => now, 10_000);
      const charge = { limiter, adminsUnlimited: true };

      expect(await repository.admit(`${key.slice(0, 21)}${"A".repeat(43)}`, charge)).toBeUndefined();
      const admitted = await repository.admit(key, charge);
      expect(admitted?.principal).toMatchObject({ userId: alice, isAdmin: false });
      expect(admitted?.rateLimit).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
      // The refused key above was not counted against anyone.
      expect((await repository.admit(key, charge))?.rateLimit).toMatchObject({ remaining: 1 });
      expect((await repository.admit(admin, charge))?.rateLimit).toBeUndefined();
      expect((await repository.admit(admin, undefined))?.principal.isAdmin).toBe(true);
      expect((await repository.admit(key, undefined))?.rateLimit).toBeUndefined();
      await expectBudget(repository, key, charge, now);

      // A new window, a new budget.
      now += 10_000;
      expect((await repository.admit(key, charge))?.rateLimit).toMatchObject({ allowed: true, remaining: 2 });
    } finally {
      await repository.close();
    }
  });

  it("counts requests made at once against one budget per key, keys apart, and resets each window", async () => {
    const repository = await openTestRepository();
    try {
      const alice = await repository.ensureUser("alice", NOW);
      const [k1, k2] = [await repository.createApiKey(alice, NOW), await repository.createApiKey(alice, NOW)];
      const p1 = await repository.authenticate(k1);
      const p2 = await repository.authenticate(k2);
      let now = 1_700_000_000_000;
      const clock = (): number => now;
      // One limiter, as one server has; instances sharing a database: server-postgres.test.ts.
      const limiter = repository.rateLimiter(4, clock, 60_000);
      const bucket = (id: number | undefined): string => String(id);
      const states = await Promise.all(Array.from({ length: 6 }, async () => limiter.hit(bucket(p1?.keyId))));
      expect(states.filter((s) => s.allowed)).toHaveLength(4);
      expect(states.map((s) => s.remaining).sort()).toEqual([0, 0, 0, 1, 2, 3]);
      // The clock stands still: every answer of the window that just opened resets in 60 s.
      expect(states.map((s) => s.resetSeconds)).toEqual(Array<number>(6).fill(60));
      expect(await limiter.hit(bucket(p2?.keyId))).toMatchObject({ allowed: true, remaining: 3 });
      now += 60_000;
      expect(await limiter.hit(bucket(p1?.keyId))).toMatchObject({ allowed: true, remaining: 3 });
    } finally {
      await repository.close();
    }
  });
});

/** The key's window has one request left of 3 when this starts: one more passes, then it refuses. */
async function expectBudget(
  repository: Repository,
  key: string,
  charge: Parameters<Repository["admit"]>[1],
  now: number,
): Promise<void> {
  expect((await repository.admit(key, charge))?.rateLimit).toMatchObject({ allowed: true, remaining: 0 });
  const refused = (await repository.admit(key, charge))?.rateLimit;
  expect(refused).toMatchObject({ allowed: false, remaining: 0 });
  expect(refused?.resetSeconds).toBe(Math.ceil((1_700_000_000_000 + 10_000 - now) / 1000));
}
