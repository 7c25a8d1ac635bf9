/** The SQLite store's own file: keys kept only as hashes, the schema version, WAL. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRepository } from "../../server/open-repository";
import { SCHEMA_VERSION } from "../../server/repository-sqlite";

const NOW = "2024-01-01 00:00:00";
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nh-repo-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("API keys", () => {
  it("are stored only as hashes", async () => {
    const path = join(dir, "keys.db");
    const repository = await openRepository(path);
    expect(repository.kind).toBe("sqlite");
    const key = await repository.createApiKey(await repository.ensureUser("alice", NOW), NOW);
    await repository.close();
    const secret = key.split("_").slice(2).join("_");
    const bytes = readFileSync(path);
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(bytes.includes(Buffer.from(key))).toBe(false);
  });
});

describe("schema", () => {
  it("records its version and reopens without migrating again", async () => {
    const path = join(dir, "schema.db");
    await (await openRepository(path)).close();
    await (await openRepository(path)).close();
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      expect(db.prepare("SELECT version FROM schema_version").all()).toEqual([{ version: SCHEMA_VERSION }]);
      expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    } finally {
      db.close();
    }
  });

  it("refuses a database from a newer version", async () => {
    const path = join(dir, "future.db");
    await (await openRepository(path)).close();
    const db = new DatabaseSync(path);
    db.exec(`UPDATE schema_version SET version = ${SCHEMA_VERSION + 1}`);
    db.close();
    await expect(openRepository(path)).rejects.toThrow(/newer than this server/);
  });

  it("refuses a URL of a store it does not know, without its password", async () => {
    const opened = openRepository("mysql://app:hunter2-secret@db.example.com/nh");
    await expect(opened).rejects.toThrow(/mysql:\/\/ URL names no store/);
    await expect(opened).rejects.not.toThrow(/hunter2-secret/);
  });
});
