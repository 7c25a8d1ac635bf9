/** Durability: what a file database keeps across a restart (kill -9: server-kill.test.ts). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, openSqliteRepository } from "../../server";

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
    const repository = openSqliteRepository(db);
    const key = await repository.createApiKey(
      await repository.ensureUser("alice", "2024-01-01 00:00:00"),
      "2024-01-01 00:00:00",
    );
    await repository.close();
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
