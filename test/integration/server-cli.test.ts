/**
 * The `notification-handlers-server` command, run from `dist/` as users run it (build first with
 * `npm run build`).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  type CliProcess,
  call,
  closedPort,
  runCli,
  startCliForTest,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";

let dir: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  dir = mkdtempSync(join(tmpdir(), "nh-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function serve(args: readonly string[], cwd?: string, env?: Record<string, string>): CliProcess {
  return startCliForTest(["serve", "--port", "0", ...args], { cwd, env });
}

async function urlOf(cli: CliProcess): Promise<string> {
  const line = await cli.firstLine;
  const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
  expect(match, line).not.toBeNull();
  expect(Number(match?.[2])).toBeGreaterThan(0);
  return match?.[1] ?? "";
}

async function newKey(db: string, user = "alice"): Promise<string> {
  const result = await runCli(["keys", "create", "--db", db, "--user", user]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** Resolves once the server's stderr log shows `text`. */
async function logShows(cli: CliProcess, text: string): Promise<void> {
  while (!cli.stderr().includes(text)) {
    await new Promise<void>((resolve) => cli.child.stderr?.once("data", () => resolve()));
  }
}

describe("serve", () => {
  it("prints its URL first, with the real port, and logs only to stderr", async () => {
    const db = join(dir, "serve.db");
    const key = await newKey(db);
    const cli = serve(["--db", db]);
    const url = await urlOf(cli);
    const answer = await call(url, "GET", PATH, { key });
    expect(answer.status).toBe(200);
    await logShows(cli, "request completed");
    expect(cli.stderr()).not.toContain(key);
  });

  it("accepts a key created while it runs, at once", async () => {
    const db = join(dir, "live-keys.db");
    const cli = serve(["--db", db]);
    const url = await urlOf(cli);
    const key = await newKey(db, "late-comer");
    const created = await call(url, "POST", PATH, {
      key,
      form: { name: "n", type: "internal_notification" },
    });
    expect(created.status).toBe(201);
  });

  it("uses --public-url for links and --rate-limit for the limit", async () => {
    const db = join(dir, "options.db");
    const key = await newKey(db);
    const cli = serve(["--db", db, "--public-url", "https://handlers.example.com", "--rate-limit", "2"]);
    const url = await urlOf(cli);
    const first = await call(url, "GET", PATH, { key });
    expect((first.json as { links: { self: string } }).links.self).toBe(
      "https://handlers.example.com/api/notification-handlers?page=1",
    );
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    await call(url, "GET", PATH, { key });
    expect((await call(url, "GET", PATH, { key })).status).toBe(429);
  });

  it("keeps nothing with --db :memory:", async () => {
    const cwd = mkdtempSync(join(dir, "memory-"));
    const cli = serve(["--db", ":memory:"], cwd);
    const url = await urlOf(cli);
    expect((await call(url, "GET", PATH)).status).toBe(401);
    cli.child.kill("SIGTERM");
    expect((await cli.exited).code).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("finishes a request in flight on SIGTERM, then closes the database and exits 0", async () => {
    const db = join(dir, "graceful.db");
    const key = await newKey(db);
    const cli = serve(["--db", db]);
    const url = await urlOf(cli);

    // A create whose body arrives in two halves, with the signal in between.
    const body = "name=in+flight&type=internal_notification";
    const answer = new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
      const req = request(
        `${url}${PATH}`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/x-www-form-urlencoded",
            "content-length": String(body.length),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode, text }));
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, 10));
      void logShows(cli, "incoming request").then(() => {
        cli.child.kill("SIGTERM");
        return logShows(cli, "closing").then(() => req.end(body.slice(10)));
      });
    });
    expect(await answer).toEqual({ status: 201, text: '{"data":{"id":1}}' });
    expect((await cli.exited).code).toBe(0);
    // A clean close checkpoints the write-ahead log into the database file and removes it.
    expect(existsSync(`${db}-wal`)).toBe(false);

    const again = serve(["--db", db]);
    const list = await call(await urlOf(again), "GET", PATH, { key });
    expect((list.json as { data: Array<{ name: string }> }).data.map((h) => h.name)).toEqual(["in flight"]);
  });

  it("exits 0 on SIGINT too", async () => {
    const cli = serve(["--db", join(dir, "sigint.db")]);
    await urlOf(cli);
    cli.child.kill("SIGINT");
    expect((await cli.exited).code).toBe(0);
  });

  it("fails with exit code 1 and one line when the port is taken", async () => {
    const first = serve(["--db", ":memory:"]);
    const port = new URL(await urlOf(first)).port;
    const second = await runCli(["serve", "--db", ":memory:", "--port", port]);
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split("\n").at(-1)).toMatch(/EADDRINUSE/);
  });
});

describe("configuration from the environment", () => {
  it("reads every option from its variable", async () => {
    const db = join(dir, "env.db");
    const key = await newKey(db);
    const cli = startCliForTest(["serve"], {
      env: {
        HOST: "127.0.0.1",
        PORT: "0",
        DATABASE_URL: db,
        PUBLIC_URL: "https://env.example.com",
        RATE_LIMIT: "3",
        REQUEST_TIMEOUT: "0.5",
        LOG_LEVEL: "warn",
      },
    });
    const url = await urlOf(cli);
    const first = await call(url, "GET", PATH, { key });
    expect(first.headers.get("x-ratelimit-limit")).toBe("3");
    expect((first.json as { links: { self: string } }).links.self).toBe(
      "https://env.example.com/api/notification-handlers?page=1",
    );
    // The 0.5 s arrival limit: a body that stops coming is cut with a 408.
    const started = Date.now();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const headers = {
        authorization: `Bearer ${key}`,
        "content-type": "application/x-www-form-urlencoded",
        "content-length": "10",
      };
      const req = request(`${url}${PATH}`, { method: "POST", headers }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(status).toBe(408);
    // Far below the default 20 s, with room for a loaded machine: the variable's limit applied.
    expect(Date.now() - started).toBeLessThan(10_000);
    // LOG_LEVEL=warn: no request logs.
    expect(cli.stderr()).not.toContain("incoming request");
  });

  it("lets a flag win over its variable", async () => {
    const db = join(dir, "flag-wins.db");
    const key = await newKey(db);
    const cli = serve(
      ["--db", db, "--rate-limit", "5", "--public-url", "https://flag.example.com"],
      undefined,
      {
        PORT: "1",
        DATABASE_URL: join(dir, "not-this.db"),
        RATE_LIMIT: "1",
        PUBLIC_URL: "https://env.example.com",
      },
    );
    const url = await urlOf(cli);
    const answer = await call(url, "GET", PATH, { key });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ratelimit-limit")).toBe("5");
    expect((answer.json as { links: { self: string } }).links.self).toMatch(
      /^https:\/\/flag\.example\.com\//,
    );
    expect(existsSync(join(dir, "not-this.db"))).toBe(false);
  });

  it("creates keys in DATABASE_URL", async () => {
    const db = join(dir, "env-keys.db");
    const result = await runCli(["keys", "create", "--user", "alice"], undefined, { DATABASE_URL: db });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
  });

  it.each([
    [{ PORT: "http" }, "PORT must be a whole number"],
    [{ RATE_LIMIT: "-1" }, "RATE_LIMIT must be a whole number"],
    [{ REQUEST_TIMEOUT: "0" }, "REQUEST_TIMEOUT must be a number of seconds"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL must be one of"],
    [{ PUBLIC_URL: "ftp://x" }, "PUBLIC_URL must be an http or https URL"],
  ])("%j: exit code 2 naming the variable", async (env, message) => {
    const result = await runCli(["serve", "--db", ":memory:"], undefined, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("reports an unreachable PostgreSQL database, and refuses other URLs, without a folder or the password", async () => {
    const cwd = mkdtempSync(join(dir, "postgres-"));
    const secret = "pw-3c1f0b9e8d7a";
    const port = await closedPort();
    for (const args of [["serve"], ["keys", "create", "--user", "alice"]]) {
      const viaEnv = await runCli(args, cwd, {
        DATABASE_URL: `postgres://app:${secret}@127.0.0.1:${port}/nh`,
      });
      expect(viaEnv.code).toBe(1);
      expect(viaEnv.stderr).toMatch(
        new RegExp(
          `^notification-handlers-server: cannot open the PostgreSQL database postgres://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/nh: [^\\n]*ECONNREFUSED[^\\n]*\\n$`,
        ),
      );
      expect(viaEnv.stderr).not.toContain(secret);
      const viaFlag = await runCli([...args, "--db", `mysql://app:${secret}@db/nh`], cwd);
      expect(viaFlag.code).toBe(2);
      expect(viaFlag.stderr).toContain("--db is a mysql:// URL");
      expect(viaFlag.stderr).not.toContain(secret);
      const malformed = await runCli([...args, "--db", `postgres://app:${secret}@[bad/nh`], cwd);
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toContain("--db is not a valid PostgreSQL URL");
      expect(malformed.stderr).not.toContain(secret);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe("keys create", () => {
  it("prints only the key, creating the database, its folder and the user", async () => {
    const db = join(dir, "nested", "folder", "keys.db");
    const result = await runCli(["keys", "create", "--db", db, "--user", "alice"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^nhk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
    expect(result.stderr).toBe("");
    expect(existsSync(db)).toBe(true);
    const second = await newKey(db, "alice");
    expect(second).not.toBe(result.stdout.trim());
  });

  it("defaults to .data/notification-handlers.db in the working directory", async () => {
    const cwd = mkdtempSync(join(dir, "default-"));
    const result = await runCli(["keys", "create", "--user", "alice"], cwd);
    expect(result.code).toBe(0);
    expect(existsSync(join(cwd, ".data", "notification-handlers.db"))).toBe(true);
  });
});

describe("bad arguments", () => {
  it.each([
    [[]],
    [["launch"]],
    [["serve", "--port", "abc"]],
    [["serve", "--port", "70000"]],
    [["serve", "--rate-limit", "-1"]],
    [["serve", "--public-url", "ftp://example.com"]],
    [["serve", "--verbose"]],
    [["serve", "extra"]],
    [["serve", "--port"]],
    [["keys"]],
    [["keys", "delete"]],
    [["keys", "create", "--db", ":memory:"]],
    [["keys", "create", "--user"]],
  ])("%j: one line on stderr, nothing on stdout, exit code 2", async (args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^notification-handlers-server: [^\n]+\n$/);
  });

  it("prints usage on --help and exits 0", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("notification-handlers-server serve");
    expect(result.stdout).toContain("notification-handlers-server keys create");
  });
});
