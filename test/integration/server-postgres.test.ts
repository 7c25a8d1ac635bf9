/**
 * What only the PostgreSQL store has: several instances on one database (unique ids, every write
 * seen by every instance, one rate-limit budget per key), its migrations, and the command line
 * against a URL. Runs in the integration-postgres project, on the run's throwaway server.
 */
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { describe, expect, it, onTestFinished } from "vitest";
import { type EmulatedVersion, type Repository, buildApp } from "../../server";
import { POSTGRES_SCHEMA_VERSION } from "../../server/repository-postgres";
import { openRepository } from "../../server/open-repository";
import {
  type Answer,
  type CliProcess,
  call,
  createTestDatabase,
  manualClock,
  runCli,
  startCli,
  storedText,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const NOW = "2024-01-01 00:00:00";

async function open(url: string): Promise<Repository> {
  const repository = await openRepository(url);
  onTestFinished(() => repository.close());
  return repository;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** One instance of the service: its own app and its own connection pool, on a shared database. */
interface Instance {
  app: FastifyInstance;
  url: string;
}

/** Starts `count` instances on the database at `db`, opening their stores at the same time. */
async function startInstances(
  db: string,
  count: number,
  options: { now: () => number; emulate?: EmulatedVersion },
): Promise<{ instances: Instance[]; repository: Repository }> {
  const repositories = await Promise.all(Array.from({ length: count }, () => open(db)));
  const instances: Instance[] = [];
  for (const repository of repositories) {
    // The default limit: 60 requests a minute per key, the emulated one too.
    const app = buildApp({
      repository,
      now: options.now,
      ...(options.emulate === undefined ? {} : { emulate: options.emulate }),
    });
    onTestFinished(() => app.close());
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    instances.push({ app, url: `http://127.0.0.1:${address.port}` });
  }
  const [first] = repositories;
  if (first === undefined) throw new Error("no instance");
  return { instances, repository: first };
}

function instance(instances: readonly Instance[], i: number): Instance {
  const chosen = instances[i % instances.length];
  if (chosen === undefined) throw new Error("no instance");
  return chosen;
}

describe("three instances on one database", () => {
  it("hand out unique ids, and every instance sees every write", async () => {
    const db = await createTestDatabase();
    const { instances, repository } = await startInstances(db, 3, { now: manualClock().now });
    const key = await repository.createApiKey(await repository.ensureUser("alice", NOW), NOW);

    // 45 creates at once, spread over the three (45 of the key's 60 requests a minute).
    const created = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        call(instance(instances, i).url, "POST", PATH, {
          key,
          form: { name: `handler ${i}`, type: "internal_notification" },
        }),
      ),
    );
    expect(created.map((answer) => answer.status)).toEqual(Array<number>(45).fill(201));
    const ids = created.map((answer) => (answer.json as { data: { id: number } }).data.id);
    expect(new Set(ids).size).toBe(45);

    for (const { url } of instances) {
      const listed = await call(url, "GET", `${PATH}?results_per_page=100`, { key });
      const seen = (listed.json as { data: Array<{ id: number }> }).data.map((handler) => handler.id);
      expect(seen.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    }

    // A rename through one instance is what the others read next.
    const [id] = ids;
    const renamed = await call(instance(instances, 0).url, "POST", `${PATH}/${id}`, {
      key,
      form: { name: "renamed" },
    });
    expect(renamed.status).toBe(200);
    for (const { url } of instances.slice(1)) {
      const read = await call(url, "GET", `${PATH}/${id}`, { key });
      expect((read.json as { data: { name: string } }).data.name).toBe("renamed");
    }
  });

  it.each([["the reference server"], ["emulated 2026"]])(
    "share one budget of 60 requests a minute per key (%s)",
    async (which) => {
      const db = await createTestDatabase();
      const clock = manualClock();
      const emulate = which === "emulated 2026" ? ({ emulate: "2026" } as const) : {};
      const { instances, repository } = await startInstances(db, 3, { now: clock.now, ...emulate });
      const user = await repository.ensureUser("alice", NOW);
      const key = await repository.createApiKey(user, NOW);

      // 90 requests at once, 30 to each instance: 60 pass in all, whichever instance they reach.
      const answers: Answer[] = await Promise.all(
        Array.from({ length: 90 }, (_, i) => call(instance(instances, i).url, "GET", PATH, { key })),
      );
      const passed = answers.filter((answer) => answer.status === 200);
      expect(passed).toHaveLength(60);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(30);
      if (which === "the reference server") {
        // One counter: every request that passed left a different number of requests.
        const remaining = passed.map((answer) => Number(answer.headers.get("x-ratelimit-remaining")));
        expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
      }

      // Another key of the same user has its own budget.
      const other = await repository.createApiKey(user, NOW);
      expect((await call(instance(instances, 2).url, "GET", PATH, { key: other })).status).toBe(200);

      // Once the window is over, the key may call again, on any instance.
      expect((await call(instance(instances, 1).url, "GET", PATH, { key })).status).toBe(429);
      clock.advance(60_000); // 60 s
      expect((await call(instance(instances, 1).url, "GET", PATH, { key })).status).toBe(200);
    },
  );
});

describe("migrations", () => {
  it("create the schema once, even when instances open it at the same time", async () => {
    const db = await createTestDatabase();
    await Promise.all(Array.from({ length: 4 }, () => open(db)));
    await open(db);
    const versions = await query<{ version: number }>(db, "SELECT version FROM schema_migrations");
    expect(versions).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  });

  it("refuse a database from a newer version", async () => {
    const db = await createTestDatabase();
    await (await openRepository(db)).close();
    await query(db, `INSERT INTO schema_migrations VALUES (${POSTGRES_SCHEMA_VERSION + 1}, 'later')`);
    await expect(openRepository(db)).rejects.toThrow(/newer than this server/);
  });
});

describe("API keys", () => {
  it("are stored only as hashes", async () => {
    const db = await createTestDatabase();
    const repository = await open(db);
    const key = await repository.createApiKey(await repository.ensureUser("alice", NOW), NOW);
    const stored = await storedText(db);
    expect(stored).toContain("alice");
    expect(stored.includes(key)).toBe(false);
    expect(stored.includes(key.split("_").slice(2).join("_"))).toBe(false);
  });
});

describe("the command line with a PostgreSQL URL", () => {
  it("creates a key with keys create and serves it, from --db or DATABASE_URL, never logging the password", async () => {
    const db = await createTestDatabase();
    // The throwaway server trusts loopback, so the password is ignored by it; it must still never show.
    const secret = "pw-7e2d41c9";
    const withPassword = new URL(db);
    withPassword.password = secret;
    const created = await runCli(["keys", "create", "--db", withPassword.toString(), "--user", "alice"]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^nhk_/);

    const server: CliProcess = startCli(["serve", "--port", "0", "--log-level", "info"], undefined, {
      DATABASE_URL: withPassword.toString(),
    });
    onTestFinished(async () => {
      server.child.kill("SIGTERM");
      await server.exited;
    });
    const url = (await server.firstLine).replace("listening on ", "");
    const made = await call(url, "POST", PATH, {
      key,
      form: { name: "from the CLI", type: "internal_notification" },
    });
    expect(made.status).toBe(201);
    expect((await call(url, "GET", "/readyz")).status).toBe(200);
    expect(server.stderr()).toContain('"store":"postgres postgres://postgres:***@127.0.0.1');
    expect(server.stderr()).not.toContain(secret);

    // The handler is in the database, where another instance (here the store itself) reads it.
    const repository = await open(db);
    const principal = await repository.authenticate(key);
    const listed = await repository.listHandlers(
      principal?.userId ?? 0,
      { datetimeField: "datetime", orderBy: "name", orderType: "ASC" },
      10,
      0,
    );
    expect(listed.records.map((record) => record.name)).toEqual(["from the CLI"]);
  });
});
