/**
 * The store on its own, whichever it is (SQLite here, PostgreSQL in the integration-postgres
 * project): keys and their revocation, ownership of rows, updates that read and write atomically.
 */
import { describe, expect, it } from "vitest";
import type { HandlerData } from "../../server/repository";
import { STORE, openTestRepository } from "./server-helpers";

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
});
