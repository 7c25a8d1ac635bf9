/** The store on its own: keys kept only as hashes, the schema version, ownership of rows. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION, openRepository } from "../../server/repository";

const NOW = "2024-01-01 00:00:00";
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nh-repo-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("API keys", () => {
  it("are stored only as hashes", () => {
    const path = join(dir, "keys.db");
    const repository = openRepository(path);
    const key = repository.createApiKey(repository.ensureUser("alice", NOW), NOW);
    repository.close();
    const secret = key.split("_").slice(2).join("_");
    const bytes = readFileSync(path);
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from(key))).toBe(false);
  });

  it("authenticate their own user, until revoked", () => {
    const repository = openRepository(":memory:");
    try {
      const alice = repository.ensureUser("alice", NOW);
      expect(repository.ensureUser("alice", NOW)).toBe(alice);
      const bob = repository.ensureUser("bob", NOW);
      const aliceKey = repository.createApiKey(alice, NOW);
      const bobKey = repository.createApiKey(bob, NOW);
      expect(repository.authenticate(aliceKey)?.userId).toBe(alice);
      expect(repository.authenticate(bobKey)?.userId).toBe(bob);
      // Right lookup part, wrong secret.
      const forged = `${aliceKey.slice(0, 21)}${"A".repeat(43)}`;
      expect(repository.authenticate(forged)).toBeUndefined();
      expect(repository.revokeApiKey(aliceKey, NOW)).toBe(true);
      expect(repository.authenticate(aliceKey)).toBeUndefined();
      expect(repository.revokeApiKey(aliceKey, NOW)).toBe(false);
    } finally {
      repository.close();
    }
  });
});

describe("schema", () => {
  it("records its version and reopens without migrating again", () => {
    const path = join(dir, "schema.db");
    openRepository(path).close();
    openRepository(path).close();
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      expect(db.prepare("SELECT version FROM schema_version").all()).toEqual([{ version: SCHEMA_VERSION }]);
      expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    } finally {
      db.close();
    }
  });

  it("refuses a database from a newer version", () => {
    const path = join(dir, "future.db");
    openRepository(path).close();
    const db = new DatabaseSync(path);
    db.exec(`UPDATE schema_version SET version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openRepository(path)).toThrow(/newer than this server/);
  });
});

describe("handlers", () => {
  it("belong to one user: others can neither read, change, delete nor count them", () => {
    const repository = openRepository(":memory:");
    try {
      const alice = repository.ensureUser("alice", NOW);
      const bob = repository.ensureUser("bob", NOW);
      const data = { type: "email", name: "n", settings: { email: "a@b.co" }, isEnabled: true };
      const record = repository.createHandler(alice, data, NOW);
      expect(repository.getHandler(bob, record.id)).toBeUndefined();
      expect(repository.updateHandler(bob, record.id, { ...data, name: "x" }, NOW)).toBeUndefined();
      expect(repository.deleteHandler(bob, record.id)).toBe(false);
      const filter = { datetimeField: "datetime", orderBy: "name", orderType: "ASC" } as const;
      expect(repository.listHandlers(bob, filter, 10, 0)).toEqual({ records: [], total: 0 });
      expect(repository.listHandlers(alice, filter, 10, 0).total).toBe(1);
      expect(repository.getHandler(alice, record.id)).toEqual(record);
    } finally {
      repository.close();
    }
  });
});
