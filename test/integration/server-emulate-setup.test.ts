/**
 * Setting up an emulation: the `buildApp` options, the command line (`serve --emulate`,
 * `--feature-off`, `--plan-limit`, `--disable-type`, `keys create --admin`) and the schema upgrade
 * that stores what emulations need. The CLI runs from `dist/` (build first with `npm run build`).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildAppOptions, buildApp } from "../../server";
import { MIGRATIONS, SCHEMA_VERSION, openSqliteRepository } from "../../server/repository-sqlite";
import { CLI, call, runCli, startCliForTest } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const NOW = "2024-01-01 00:00:00";

let dir: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  dir = mkdtempSync(join(tmpdir(), "nh-emulate-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("buildApp refuses emulation options it cannot honour", () => {
  it.each<[string, BuildAppOptions, RegExp]>([
    ["an unknown version", { emulate: "2024" as never }, /emulate must be 2023, 2025 or 2026/],
    ["a presenter with emulate", { emulate: "2025", presenter: {} as never }, /exclude each other/],
    ["site options without emulate", { planLimit: 3 }, /need emulate/],
    ["an unknown disabled type", { emulate: "2026", disabledTypes: ["fax"] }, /fax is not one of/],
    ["a negative plan limit", { emulate: "2026", planLimit: -1 }, /planLimit must be/],
  ])("%s", (_what, options, message) => {
    expect(() => buildApp(options)).toThrow(message);
  });
});

async function newKey(db: string, ...extra: string[]): Promise<string> {
  const result = await runCli(["keys", "create", "--db", db, "--user", "alice", ...extra]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

async function serve(args: readonly string[]): Promise<string> {
  const cli = startCliForTest(["serve", "--port", "0", ...args], { stop: "SIGTERM" });
  const line = await cli.firstLine;
  const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
  expect(match, line).not.toBeNull();
  return match?.[1] ?? "";
}

describe("notification-handlers-server serve --emulate", () => {
  it("answers as the version asked for; keys create --admin issues a key with no limit", async () => {
    const db = join(dir, "emulate.db");
    const key = await newKey(db);
    const admin = await newKey(db, "--admin");
    const url = await serve([
      "--db",
      db,
      "--emulate",
      "2025",
      "--plan-limit",
      "1",
      "--disable-type",
      "slack",
    ]);
    const created = await call(url, "POST", PATH, {
      key,
      form: { name: "n", type: "internal_notification" },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ data: { id: 1, settings: "{}" } });
    const overLimit = await call(url, "POST", PATH, {
      key,
      form: { name: "n", type: "internal_notification" },
    });
    expect(overLimit.json).toEqual({
      errors: [{ title: "Your have exceeded the limits of your current plan.", status: 401 }],
    });
    const listed = await call(url, "GET", PATH, { key });
    expect(listed.headers.get("x-ratelimit-remaining")).toBe("57");
    expect(listed.json).toMatchObject({ meta: { total_results: 1 } });
    const asAdmin = await call(url, "GET", PATH, { key: admin });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.headers.get("x-ratelimit-limit")).toBeNull();
  });

  it("--feature-off answers the HTML 404 page", async () => {
    const url = await serve(["--db", ":memory:", "--emulate", "2026", "--feature-off"]);
    const answer = await call(url, "GET", PATH);
    expect(answer.status).toBe(404);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it.each([
    [["--emulate", "2024"], '--emulate must be one of 2023, 2025, 2026, got "2024"'],
    [["--emulate"], "--emulate"],
    [["--plan-limit", "3"], "--plan-limit and --disable-type need --emulate"],
    [["--emulate", "2026", "--disable-type", "fax"], "--disable-type must be one of"],
    [["--emulate", "2026", "--plan-limit", "some"], "--plan-limit must be a whole number"],
  ])("%j exits 2 with a one-line error", async (args, message) => {
    const result = await runCli(["serve", "--port", "0", "--db", ":memory:", ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(message);
  });
});

describe("schema version 2", () => {
  it("upgrades a version 1 database in place: rows, ids never reused, keys not admin", async () => {
    const path = join(dir, "v1.db");
    const db = new DatabaseSync(path);
    db.exec(MIGRATIONS[0] ?? "");
    db.exec("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1)");
    db.exec(`INSERT INTO users (name, created_at) VALUES ('alice', '${NOW}')`);
    db.exec(
      `INSERT INTO notification_handlers (user_id, type, name, settings, is_enabled, datetime) VALUES
       (1, 'email', 'kept', '{"email":"a@b.co"}', 1, '${NOW}'),
       (1, 'webhook', 'deleted', '{"webhook":"https://example.com"}', 0, '${NOW}')`,
    );
    db.exec("DELETE FROM notification_handlers WHERE id = 2");
    db.close();

    const repository = openSqliteRepository(path);
    try {
      expect(SCHEMA_VERSION).toBe(2);
      const key = await repository.createApiKey(1, NOW);
      expect(await repository.authenticate(key)).toMatchObject({ userId: 1, isAdmin: false });
      expect(await repository.getHandler(1, 1)).toEqual({
        id: 1,
        userId: 1,
        type: "email",
        name: "kept",
        settings: { email: "a@b.co" },
        isEnabled: true,
        lastDatetime: null,
        datetime: NOW,
        activationCode: null,
      });
      // Id 2 was used before the upgrade: the next handler is 3.
      const next = await repository.createHandler(
        1,
        { type: null, name: "damaged", settings: { "": "" }, isEnabled: true },
        NOW,
      );
      expect(next).toMatchObject({ id: 3, type: null });
    } finally {
      await repository.close();
    }
  });
});
