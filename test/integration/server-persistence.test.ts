/** Durability: what a file database keeps across a restart, and across a kill -9 mid-write. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, openRepository } from "../../server/app";
import { CLI, type CliProcess, call, runCli, startCli } from "./server-helpers";

const PATH = "/api/notification-handlers";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nh-persist-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Listed {
  data: Array<{ id: number; name: string; is_enabled: boolean }>;
}

describe("a file database", () => {
  it("keeps handlers, keys and the id sequence across a restart", async () => {
    const db = join(dir, "restart.db");
    const repository = openRepository(db);
    const key = repository.createApiKey(
      repository.ensureUser("alice", "2024-01-01 00:00:00"),
      "2024-01-01 00:00:00",
    );
    repository.close();
    const first = buildApp({ db });
    const auth = { authorization: `Bearer ${key}` };
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const ids: number[] = [];
    for (const name of ["one", "two", "three"]) {
      const answer = await first.inject({
        method: "POST",
        url: PATH,
        headers: { ...auth, ...form },
        payload: `name=${name}&type=email&email=${name}%40example.com`,
      });
      ids.push(answer.json<{ data: { id: number } }>().data.id);
    }
    expect(
      (await first.inject({ method: "DELETE", url: `${PATH}/${ids[2]}`, headers: auth })).statusCode,
    ).toBe(204);
    await first.close();

    const second = buildApp({ db });
    try {
      const listed = await second.inject({ method: "GET", url: `${PATH}?order_type=ASC`, headers: auth });
      expect(listed.statusCode).toBe(200);
      expect(listed.json<Listed>().data.map((h) => [h.id, h.name])).toEqual([
        [ids[0], "one"],
        [ids[1], "two"],
      ]);
      const next = await second.inject({
        method: "POST",
        url: PATH,
        headers: { ...auth, ...form },
        payload: "name=four&type=internal_notification",
      });
      expect(next.json<{ data: { id: number } }>().data.id).toBeGreaterThan(ids[2] ?? Infinity);
    } finally {
      await second.close();
    }
  });
});

describe("kill -9", () => {
  let server: CliProcess | undefined;
  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  });

  it("loses no write the server acknowledged", async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
    const db = join(dir, "killed.db");
    const keyRun = await runCli(["keys", "create", "--db", db, "--user", "alice"]);
    expect(keyRun.code, keyRun.stderr).toBe(0);
    const key = keyRun.stdout.trim();

    server = startCli(["serve", "--port", "0", "--db", db, "--rate-limit", "0"]);
    const url = (await server.firstLine).replace("listening on ", "");
    const victim = server;

    // Eight clients write as fast as they can; the server is killed once 120 writes are
    // acknowledged, with more in flight. Each client records what the server confirmed.
    const created = new Map<number, string>();
    const renamed = new Map<number, string>();
    let acknowledged = 0;
    let killed = false;
    const client = async (worker: number): Promise<void> => {
      for (let i = 0; ; i++) {
        try {
          const name = `w${worker}-${i}`;
          const answer = await call(url, "POST", PATH, {
            key,
            form: { name, type: "internal_notification" },
          });
          if (answer.status !== 201) throw new Error(answer.text);
          const { id } = (answer.json as { data: { id: number } }).data;
          created.set(id, name);
          acknowledged++;
          if (i % 3 === 0) {
            const update = await call(url, "POST", `${PATH}/${id}`, {
              key,
              form: { name: `${name}-renamed` },
            });
            if (update.status !== 200) throw new Error(update.text);
            renamed.set(id, `${name}-renamed`);
            acknowledged++;
          }
        } catch {
          return; // the server is gone: stop writing
        }
        if (acknowledged >= 120 && !killed) {
          killed = true;
          victim.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, worker) => client(worker)));
    expect((await victim.exited).signal).toBe("SIGKILL");
    expect(created.size).toBeGreaterThanOrEqual(80);

    server = startCli(["serve", "--port", "0", "--db", db, "--rate-limit", "0"]);
    const again = (await server.firstLine).replace("listening on ", "");
    const stored = new Map<number, string>();
    for (let page = 1; ; page++) {
      const answer = await call(again, "GET", `${PATH}?results_per_page=1000&page=${page}`, { key });
      const { data } = answer.json as Listed;
      if (data.length === 0) break;
      for (const handler of data) stored.set(handler.id, handler.name);
    }
    for (const [id, name] of created) {
      expect(stored.has(id), `acknowledged handler ${id} is missing`).toBe(true);
      // An acknowledged rename must be there; one cut off by the kill may or may not be.
      const expected = renamed.has(id) ? [renamed.get(id)] : [name, `${name}-renamed`];
      expect(expected).toContain(stored.get(id));
    }
  });
});
