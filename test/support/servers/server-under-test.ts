/**
 * Shared set-up of the server tests: a real server on 127.0.0.1 port 0, keys, a clock, requests.
 * The store is SQLite in memory, or, in the `integration-postgres` project, a fresh database on the
 * run's PostgreSQL server (postgres-global-setup.ts): the same tests run against both stores.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { inject, onTestFinished } from "vitest";
import {
  type BuildAppOptions,
  buildApp,
  openRepository,
  openSqliteRepository,
  type Repository,
} from "../../../server";
import { assertMatchesSpec } from "./openapi-check";

/** The compiled command line, built by `npm run build`. */
export const CLI = join(__dirname, "..", "..", "..", "server", "dist", "server", "main.js");

/** The store this project runs the tests against. */
export const STORE: "sqlite" | "postgres" = inject("postgresUrl") === undefined ? "sqlite" : "postgres";

/** A new, empty database on the run's PostgreSQL server; its URL. Only in the PostgreSQL project. */
export async function createTestDatabase(): Promise<string> {
  const admin = inject("postgresUrl");
  if (admin === undefined) throw new Error("no PostgreSQL server in this project");
  const name = `nh_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Every row of a test database as text (BYTEA as hex), to check what the store keeps: no API key,
 * only its hash.
 */
export async function storedText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = ["users", "api_keys", "notification_handlers", "rate_limit_windows"];
    const parts: string[] = [];
    for (const table of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`);
      parts.push(...rows.map((r) => r.row));
    }
    return parts.join("\n");
  } finally {
    await client.end();
  }
}

/** An empty store of the kind under test: SQLite in memory, or a fresh PostgreSQL database. */
export async function openTestRepository(): Promise<Repository> {
  return STORE === "postgres" ? openRepository(await createTestDatabase()) : openSqliteRepository(":memory:");
}

/** A port on 127.0.0.1 that nothing listens on: taken from the OS, then let go. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

/** 2024-01-01 00:00:00 UTC, where test clocks start. */
export const EPOCH = Date.UTC(2024, 0, 1);

/** A clock the test moves by hand. */
export interface ManualClock {
  now: () => number;
  advance: (ms: number) => void;
}

/** A clock at `start` that moves only when told. */
export function manualClock(start = EPOCH): ManualClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** What a test gets back from a request. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when there is none. */
  json: unknown;
}

/** How to send a request. */
export interface CallOptions {
  key?: string;
  /** Sent as multipart/form-data. */
  form?: Record<string, string> | FormData;
  /** Sent as application/x-www-form-urlencoded. */
  urlencoded?: Record<string, string> | string;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

/** A running test server. */
export interface TestServer {
  app: FastifyInstance;
  repository: Repository;
  url: string;
  clock: ManualClock;
  /** A new key for `user`, creating the user if needed. */
  key: (user?: string) => Promise<string>;
  call: (method: string, path: string, options?: CallOptions) => Promise<Answer>;
  close: () => Promise<void>;
}

/** Builds a form from plain fields. */
export function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** Sends one request to `url` the way a client would. */
export async function call(
  url: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers = new Headers(options.headers);
  if (options.key !== undefined) headers.set("authorization", `Bearer ${options.key}`);
  let body: RequestInit["body"];
  if (options.form !== undefined) {
    body = options.form instanceof FormData ? options.form : formOf(options.form);
  } else if (options.urlencoded !== undefined) {
    body = new URLSearchParams(options.urlencoded).toString();
    headers.set("content-type", "application/x-www-form-urlencoded");
  } else if (options.body !== undefined) {
    body = options.body;
  }
  const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.startsWith("application/json") === true && text !== "";
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: isJson ? JSON.parse(text) : undefined,
  };
}

/**
 * Starts the app on 127.0.0.1 port 0 over an empty store (see `openTestRepository`), with a manual clock. The rate limit is
 * off unless asked for, so tests that are not about it can make as many requests as they like. The
 * reference server's every answer is checked against the OpenAPI description (docs/openapi.json).
 */
export async function startServer(
  options: Omit<BuildAppOptions, "repository" | "db"> = {},
): Promise<TestServer> {
  const clock = manualClock();
  const repository = await openTestRepository();
  const app = buildApp({ now: clock.now, rateLimit: 0, ...options, repository });
  // It describes the reference server: emulated versions and other presenters answer otherwise on purpose.
  const reference =
    options.emulate === undefined && options.presenter === undefined && options.featureOff !== true;
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    repository,
    url,
    clock,
    key: async (user = "alice") =>
      repository.createApiKey(
        await repository.ensureUser(user, "2024-01-01 00:00:00"),
        "2024-01-01 00:00:00",
      ),
    call: async (method, path, callOptions) => {
      const answer = await call(url, method, path, callOptions);
      if (reference) assertMatchesSpec(method, path, answer);
      return answer;
    },
    close: async () => {
      await app.close();
      await repository.close();
    },
  };
}

/** A server (see {@link startServer}) for the running test, closed when the test ends. */
export async function serverForTest(
  options: Omit<BuildAppOptions, "repository" | "db"> = {},
): Promise<TestServer> {
  const server = await startServer(options);
  onTestFinished(() => server.close());
  return server;
}

/** The `errors` array of an error answer. */
export function errorsOf(answer: Answer): Array<{
  title: string;
  status: number;
  detail?: string;
  source?: { parameter: string };
}> {
  return (answer.json as { errors: never[] }).errors;
}

/** The parameters an error answer names, in order. */
export function parametersOf(answer: Answer): Array<string | undefined> {
  return errorsOf(answer).map((e) => e.source?.parameter);
}

/** A CLI process started by a test. */
export interface CliProcess {
  child: ChildProcess;
  /** Resolves to the first line of stdout. */
  firstLine: Promise<string>;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The variables the CLI reads its options from; the tests' own environment must not leak into them. */
const CLI_VARIABLES = [
  "HOST",
  "PORT",
  "DATABASE_URL",
  "PUBLIC_URL",
  "RATE_LIMIT",
  "REQUEST_TIMEOUT",
  "LOG_LEVEL",
];

/** The CLI's environment: the tests' own without the CLI's variables, plus `env`. */
function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of CLI_VARIABLES) delete base[name];
  return { ...base, ...env };
}

/** Starts the compiled CLI with `args`, using the same Node binary as the tests. */
export function startCli(args: readonly string[], cwd?: string, env?: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const lines = createInterface({ input: child.stdout });
  const firstLine = new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    void exited.then(({ code }) => reject(new Error(`CLI exited (${code}) before printing: ${stderr}`)));
  });
  return { child, firstLine, stderr: () => stderr, exited };
}

/**
 * {@link startCli} for the running test: a process still running when the test ends is stopped with
 * `stop` (SIGKILL unless told), and waited for.
 */
export function startCliForTest(
  args: readonly string[],
  options: { cwd?: string | undefined; env?: Record<string, string> | undefined; stop?: NodeJS.Signals } = {},
): CliProcess {
  const cli = startCli(args, options.cwd, options.env);
  onTestFinished(async () => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      cli.child.kill(options.stop ?? "SIGKILL");
      await cli.exited;
    }
  });
  return cli;
}

/** Runs the compiled CLI to completion. */
export async function runCli(
  args: readonly string[],
  cwd?: string,
  env?: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}
