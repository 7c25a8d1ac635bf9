/**
 * Durability across kill -9: rounds of write load from several clients, each ended by killing the
 * server, and no acknowledged create, rename or delete lost. On SQLite (a file) 25 rounds; on
 * PostgreSQL, where the database outlives the server, a smaller run.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  type CliProcess,
  STORE,
  call,
  createTestDatabase,
  runCli,
  startCli,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nh-kill-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Listed {
  data: Array<{ id: number; name: string; is_enabled: boolean }>;
}

/** What the clients know of one handler: the names it may have, and whether it may be gone. */
interface Expected {
  /** The names it may have: one once a rename is acknowledged, two while one is cut off. */
  names: string[];
  deleted: "no" | "maybe" | "yes";
}

/** Rounds of write load, each ended by a kill -9. */
const KILL_ROUNDS = STORE === "postgres" ? 5 : 25;
/** Clients writing at once. */
const WRITERS = 8;

describe("kill -9", () => {
  let server: CliProcess | undefined;
  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
  });

  /** Reads every handler the key sees. */
  async function everything(url: string, key: string): Promise<Map<number, string>> {
    const stored = new Map<number, string>();
    for (let page = 1; ; page++) {
      const answer = await call(url, "GET", `${PATH}?results_per_page=1000&page=${page}`, { key });
      const { data } = answer.json as Listed;
      if (data.length === 0) return stored;
      for (const handler of data) stored.set(handler.id, handler.name);
    }
  }

  it(`loses no acknowledged write across ${KILL_ROUNDS} kills under write load`, async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
    const db = STORE === "postgres" ? await createTestDatabase() : join(dir, "killed.db");
    const keyRun = await runCli(["keys", "create", "--db", db, "--user", "alice"]);
    expect(keyRun.code, keyRun.stderr).toBe(0);
    const key = keyRun.stdout.trim();

    const expected = new Map<number, Expected>();
    let acknowledgedTotal = 0;
    for (let round = 0; round < KILL_ROUNDS; round++) {
      server = startCli(["serve", "--port", "0", "--db", db, "--rate-limit", "0"]);
      const url = (await server.firstLine).replace("listening on ", "");
      const victim = server;

      // What the previous rounds acknowledged is all there, and nothing acknowledged as deleted is.
      const stored = await everything(url, key);
      for (const [id, want] of expected) {
        if (want.deleted === "yes") expect(stored.has(id), `deleted handler ${id} is back`).toBe(false);
        if (want.deleted === "no") expect(stored.has(id), `acknowledged handler ${id} is missing`).toBe(true);
        if (stored.has(id)) expect(want.names, `handler ${id}`).toContain(stored.get(id));
        // Settle what the kill left open, so later rounds check exact states.
        if (want.deleted === "maybe") want.deleted = stored.has(id) ? "no" : "yes";
        const name = stored.get(id);
        if (name !== undefined) want.names = [name];
      }

      // Writers create, rename and delete as fast as they can; the server is killed once a
      // round-dependent number of writes is acknowledged, with more in flight.
      const killAt = 40 + ((round * 37) % 80);
      let acknowledged = 0;
      let killed = false;
      const writer = async (worker: number): Promise<void> => {
        const mine: number[] = [];
        for (let i = 0; ; i++) {
          try {
            const name = `r${round}-w${worker}-${i}`;
            const created = await call(url, "POST", PATH, {
              key,
              form: { name, type: "internal_notification" },
            });
            if (created.status !== 201) throw new Error(created.text);
            const { id } = (created.json as { data: { id: number } }).data;
            expected.set(id, { names: [name], deleted: "no" });
            mine.push(id);
            acknowledged++;
            const target = mine[(i * 7) % mine.length];
            const want = target === undefined ? undefined : expected.get(target);
            if (target !== undefined && want !== undefined && want.deleted === "no" && i % 2 === 1) {
              if (i % 4 === 1) {
                const renamed = `${name}-renamed`;
                want.names = [...want.names, renamed];
                const update = await call(url, "POST", `${PATH}/${target}`, { key, form: { name: renamed } });
                if (update.status !== 200) throw new Error(update.text);
                want.names = [renamed];
              } else {
                want.deleted = "maybe";
                const deleted = await call(url, "DELETE", `${PATH}/${target}`, { key });
                if (deleted.status !== 204) throw new Error(deleted.text);
                want.deleted = "yes";
              }
              acknowledged++;
            }
          } catch {
            return; // the server is gone: stop writing
          }
          if (acknowledged >= killAt && !killed) {
            killed = true;
            victim.child.kill("SIGKILL");
          }
        }
      };
      await Promise.all(Array.from({ length: WRITERS }, (_, worker) => writer(worker)));
      expect((await victim.exited).signal).toBe("SIGKILL");
      expect(acknowledged).toBeGreaterThanOrEqual(killAt);
      acknowledgedTotal += acknowledged;
    }

    // A last start checks the last round too.
    server = startCli(["serve", "--port", "0", "--db", db, "--rate-limit", "0"]);
    const url = (await server.firstLine).replace("listening on ", "");
    const stored = await everything(url, key);
    let lost = 0;
    for (const [id, want] of expected) {
      if (want.deleted === "no" && !stored.has(id)) lost++;
      if (want.deleted === "yes" && stored.has(id)) lost++;
      if (stored.has(id) && !want.names.includes(stored.get(id) ?? "")) lost++;
    }
    console.log(
      `kill -9 (${STORE}): ${KILL_ROUNDS} kills, ${acknowledgedTotal} acknowledged writes, ${lost} lost`,
    );
    expect(lost).toBe(0);
    // Bounded by its rounds, not by time: about 15 s alone on 2 cores, far more on a busy machine.
  }, 180_000); // 3 min
});
