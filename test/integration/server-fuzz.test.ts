/**
 * A seeded fuzz run against a real server: 10,000 requests, well-formed and not, from two tenants and
 * strangers. The properties the service promises must hold for all of them: no 5xx, every error in
 * the API's shape (docs/api.md#error-body), every answer as the OpenAPI description declares it,
 * another user's handler always a 404, no secret setting repeated in an error or written to the log,
 * and no API key in the log or the database. Run against both stores (test/support/servers/server-under-test.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANDLER_TYPE_NAMES, fieldsOf } from "../../sdk/client/domain/catalog";
import {
  EMULATED_VERSIONS,
  type EmulatedVersion,
  buildApp,
  DEFAULT_REQUEST_TIMEOUT,
  openSqliteRepository,
  type Repository,
} from "../../server";
import { specProblems } from "../support/servers/openapi-check";
import {
  type Answer,
  STORE,
  call,
  createTestDatabase,
  storedText,
} from "../support/servers/server-under-test";
import { openRepository } from "../../server/open-repository";
import { type SeededRandom, seededRandom } from "../support/seeded-random";

const PATH = "/api/notification-handlers";
/**
 * The run is bounded by its request count, not by time: about 15 s alone on 2 cores, several times
 * that on a machine busy with other work (the PostgreSQL run beside it included).
 */
const RUN_TIMEOUT = 180_000; // 3 min
/**
 * PostgreSQL runs a fifth of the requests: what it adds is the store's side of the property, which
 * fewer requests reach as well; the parser and the routes are the same.
 */
const SCALE = STORE === "postgres" ? 5 : 1;
/** Requests sent with fetch, and raw ones written to sockets: 10,000 in all on SQLite. */
const FETCH_REQUESTS = 9_400 / SCALE;
const RAW_REQUESTS = 600 / SCALE;
/** Requests against each emulated deployed version, where only "no 5xx" and tenancy are checked. */
const EMULATED_FETCHES = 1_400 / SCALE;
const EMULATED_RAWS = 100 / SCALE;
/** Requests in flight at once. */
const CONCURRENCY = 8;
/** The seed: a failure names it, so the run can be repeated exactly. */
const SEED = Number(process.env["FUZZ_SEED"] ?? 20_261_123);

// Marks the secret values (tokens, webhook URLs) the fuzz sends in forms: none may reach the log. The
// database keeps settings as sent (they are the handler's data); API keys must be in neither.
const SECRET_MARK = "s3cr3t-f0zz";

const NASTY = [
  "",
  " ",
  "0",
  "-1",
  "1e3",
  "null",
  "true",
  "__proto__",
  "constructor",
  "%",
  "%zz",
  "_",
  "'; DROP TABLE handlers; --",
  "<script>alert(1)</script>",
  "\u0000",
  "\u202eevil",
  "😀".repeat(40),
  "a".repeat(600),
  "9".repeat(30),
  "2024-13-45 25:61:61",
  "2024-01-01 00:00:00",
];

/** A field or parameter value; secrets only in forms (a client that puts one in a URL logs it itself). */
function value(r: SeededRandom, secrets = true): string {
  switch (secrets ? r.int(6) : r.pick([0, 3, 4, 5])) {
    case 0:
      return r.pick(NASTY);
    case 1:
      return `https://hooks.example.com/${SECRET_MARK}/${r.int(1e6)}`;
    case 2:
      return `${r.int(1e9)}:${SECRET_MARK}`;
    case 3:
      return `+${r.int(1e12)}`;
    case 4:
      return `user${r.int(100)}@example.com`;
    default:
      return `name ${r.int(1e6)}`;
  }
}

const FORM_NAMES = [
  "name",
  "type",
  "is_enabled",
  ...HANDLER_TYPE_NAMES.flatMap((t) => fieldsOf(t).map((f) => f.field)),
];

/** A create or update form: mostly plausible, sometimes valid, sometimes not. */
function form(r: SeededRandom): Record<string, string> {
  const fields: Record<string, string> = {};
  if (r.chance(0.5)) {
    // A valid create of a random type, then perhaps spoiled.
    const type = r.pick(HANDLER_TYPE_NAMES);
    fields["name"] = `fuzz ${r.int(1e6)}`;
    fields["type"] = type;
    for (const spec of fieldsOf(type)) {
      fields[spec.field] = {
        email: "ops@example.com",
        "http-url": `https://hooks.example.com/${SECRET_MARK}`,
        "https-url": `https://hooks.example.com/${SECRET_MARK}`,
        "telegram-token": `123456:${SECRET_MARK}`,
        "telegram-chat-id": "-1001",
        "non-empty": SECRET_MARK,
        phone: "+15551234567",
      }[spec.rule];
    }
  }
  const extra = r.int(4);
  for (let i = 0; i < extra; i++) fields[r.chance(0.9) ? r.pick(FORM_NAMES) : r.pick(NASTY)] = value(r);
  return fields;
}

const QUERY_NAMES = [
  "search",
  "search_by",
  "is_enabled",
  "type",
  "datetime_field",
  "datetime_start",
  "datetime_end",
  "order_by",
  "order_type",
  "page",
  "results_per_page",
];
const QUERY_VALUES: Record<string, readonly string[]> = {
  search_by: ["name", "type"],
  is_enabled: ["1", "0", "true", "yes"],
  type: [...HANDLER_TYPE_NAMES, "fax"],
  datetime_field: ["datetime", "last_datetime", "id"],
  order_by: ["notification_handler_id", "datetime", "last_datetime", "name", "rowid"],
  order_type: ["ASC", "DESC", "asc", "up"],
  page: ["1", "2", "0", "-1", "99999999999999999999"],
  results_per_page: ["10", "25", "1000", "7", "0"],
};

function query(r: SeededRandom): string {
  const params = new URLSearchParams();
  const count = r.int(4);
  for (let i = 0; i < count; i++) {
    const name = r.chance(0.9) ? r.pick(QUERY_NAMES) : r.pick(NASTY);
    const known = QUERY_VALUES[name];
    params.append(name, known !== undefined && r.chance(0.7) ? r.pick(known) : value(r, false));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function idSegment(r: SeededRandom, ids: readonly number[]): string {
  if (ids.length > 0 && r.chance(0.5)) return String(r.pick(ids));
  return r.pick([
    "0",
    "1",
    "0003",
    "-1",
    "1.5",
    "abc",
    "9007199254740992",
    "%zz",
    "%2F",
    "9".repeat(200),
    "x/y",
  ]);
}

interface Tenant {
  key: string;
  ids: number[];
}

/** What the fuzz saw, to assert on and to print. */
interface Tally {
  statuses: Map<number, number>;
  requests: number;
  crossTenant: number;
  problems: string[];
}

function record(
  tally: Tally,
  label: string,
  answer: Answer,
  method: string,
  path: string | undefined,
  reference: boolean,
): void {
  tally.requests++;
  tally.statuses.set(answer.status, (tally.statuses.get(answer.status) ?? 0) + 1);
  const fail = (why: string) => {
    if (tally.problems.length < 20)
      tally.problems.push(`${label} -> ${answer.status}: ${why} ${answer.text.slice(0, 200)}`);
  };
  if (answer.status >= 500) fail("a 5xx");
  // Reads return settings as stored, secrets included; an error never repeats a value it refuses.
  if (answer.status >= 400 && answer.text.includes(SECRET_MARK)) fail("a secret in an error");
  // Emulated deployed versions answer in their own shapes (docs/api.md#deployed): for them, no 5xx is
  // the check.
  if (!reference) return;
  // Answers to requests that fetch could send are checked against the OpenAPI description too.
  if (path !== undefined) for (const problem of specProblems(method, path, answer)) fail(problem);
  if (answer.status >= 400 && method !== "HEAD") {
    const errors = (answer.json as { errors?: Array<{ status: unknown; title: unknown }> } | undefined)
      ?.errors;
    if (!Array.isArray(errors) || errors.length === 0) fail("not the error shape");
    else if (errors.some((e) => e.status !== answer.status || typeof e.title !== "string"))
      fail("bad entries");
  }
}

/** A server under fuzz, with its log and database file. */
interface FuzzServer {
  url: string;
  /** Whether it is the reference server, whose answers docs/api.md and the OpenAPI description fix. */
  reference: boolean;
  repository: Repository;
  logLines: string[];
  /** Everything the store holds, as text, to look for keys in. */
  stored: () => Promise<string>;
  /** Sets how long the server waits for a whole request before it answers 408. */
  setRequestTimeout: (ms: number) => void;
  close: () => Promise<void>;
}

// The raw requests that stop short are cut after 0.3 s; the well-formed fetches get the server's
// default, so that a loaded machine's pause is never taken for a stalled client.
const SHORT_REQUEST_TIMEOUT = 300;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nh-fuzz-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function startFuzzServer(name: string, emulate?: EmulatedVersion): Promise<FuzzServer> {
  const db = STORE === "postgres" ? await createTestDatabase() : join(dir, `${name}.db`);
  const repository = STORE === "postgres" ? await openRepository(db) : openSqliteRepository(db);
  const logLines: string[] = [];
  const app = buildApp({
    repository,
    rateLimit: 0,
    requestTimeout: SHORT_REQUEST_TIMEOUT, // also how often Node checks for stalled requests
    logger: { level: "info", stream: { write: (line: string) => void logLines.push(line) } },
    ...(emulate === undefined ? {} : { emulate }),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    reference: emulate === undefined,
    repository,
    logLines,
    stored: async () =>
      STORE === "postgres"
        ? storedText(db)
        : [db, `${db}-wal`].map((file) => (existsSync(file) ? readFileSync(file, "latin1") : "")).join("\n"),
    setRequestTimeout: (ms) => {
      app.server.requestTimeout = ms;
      app.server.headersTimeout = ms;
    },
    close: async () => {
      await app.close();
      await repository.close();
    },
  };
}

async function newTenant(server: FuzzServer, user: string): Promise<Tenant> {
  const { repository } = server;
  return {
    key: await repository.createApiKey(
      await repository.ensureUser(user, "2024-01-01 00:00:00"),
      "2024-01-01 00:00:00",
    ),
    ids: [],
  };
}

/** One fuzzed request through fetch. */
async function fetchOne(
  server: FuzzServer,
  r: SeededRandom,
  tally: Tally,
  alice: Tenant,
  bob: Tenant,
): Promise<void> {
  const { url, reference } = server;
  const roll = r.next();
  // One in twenty: bob goes after one of alice's handlers with a method the path allows.
  if (roll < 0.05 && alice.ids.length > 0) {
    const id = r.pick(alice.ids);
    const method = r.pick(["GET", "POST", "DELETE"]);
    const answer = await call(url, method, `${PATH}/${id}`, {
      key: bob.key,
      ...(method === "POST" ? { form: form(r) } : {}),
    });
    record(tally, `bob ${method} alice's ${id}`, answer, method, `${PATH}/${id}`, reference);
    tally.crossTenant++;
    if (answer.status !== 404 && tally.problems.length < 20) {
      tally.problems.push(`bob ${method} alice's ${id} -> ${answer.status}, not 404`);
    }
    return;
  }
  const tenant = r.chance(0.5) ? alice : bob;
  const method = r.pick([
    ...["GET", "GET", "GET", "POST", "POST", "POST", "POST", "DELETE"],
    ...["HEAD", "PUT", "PATCH", "OPTIONS", "FOO", "get"],
  ]);
  const path = r.chance(0.4)
    ? r.pick([PATH, `${PATH}/`])
    : r.chance(0.9)
      ? `${PATH}/${idSegment(r, tenant.ids)}`
      : r.pick([
          "/",
          "/api",
          "/api/",
          "/API/notification-handlers",
          `${PATH}//1`,
          "/healthz",
          "/readyz",
          "/%00",
        ]);
  const auth = r.next();
  const headers: Record<string, string> = {};
  let key: string | undefined = tenant.key;
  if (auth < 0.05) key = undefined;
  else if (auth < 0.08)
    headers["authorization"] = r.pick([
      "Bearer",
      "Bearer ",
      "Basic abc",
      `bearer ${tenant.key}`,
      "Bearer nhk_0_x",
    ]);
  else if (auth < 0.1) key = `${tenant.key}x`;
  const options: Parameters<typeof call>[3] = { headers, ...(key === undefined ? {} : { key }) };
  if (!["GET", "HEAD"].includes(method.toUpperCase())) {
    const body = r.int(10);
    if (body < 4) options.form = form(r);
    else if (body < 7) options.urlencoded = form(r);
    else if (body < 8)
      Object.assign(options, {
        body: JSON.stringify(form(r)),
        headers: { ...headers, "content-type": "application/json" },
      });
    else if (body < 9)
      Object.assign(options, {
        body: "x".repeat(r.chance(0.3) ? 70_000 : 100),
        headers: {
          ...headers,
          "content-type": r.pick([
            "text/plain",
            "multipart/form-data",
            "application/x-www-form-urlencoded; charset=latin1",
            "multipart/form-data; boundary=zz",
          ]),
        },
      });
  }
  const target = `${path}${path.startsWith(PATH) ? query(r) : ""}`;
  const answer = await call(url, method, target, options);
  record(tally, `${method} ${target}`, answer, method, target, reference);
  if (answer.status === 201 && key === tenant.key) {
    tenant.ids.push(Number((answer.json as { data: { id: number | string } }).data.id));
  }
}

/** One raw request: a well-formed one broken in one place, written straight to a socket. */
function rawOne(server: FuzzServer, r: SeededRandom, tally: Tally, key: string): Promise<void> {
  const { url, reference } = server;
  const method = r.pick(["GET", "POST", "FOO", "get", "CONNECT", "DELETE", "M-SEARCH", "PRI"]);
  const target = r.pick([PATH, `${PATH}/1`, "/x", "*", "http://example.com/", `${PATH}?page=%zz`]);
  const body = "name=raw&type=internal_notification";
  const headers = [
    `Host: a`,
    `Authorization: Bearer ${key}`,
    "Connection: close",
    "Content-Type: application/x-www-form-urlencoded",
  ];
  const flaw = r.int(7);
  if (flaw === 0) headers.push(`Content-Length: ${r.pick(["abc", "-1", "1, 2", "99999999999999999999"])}`);
  else if (flaw === 1) headers.push(`X-Big: ${"a".repeat(17_000)}`);
  else if (flaw === 2) headers.push("Transfer-Encoding: chunked", `Content-Length: ${body.length}`);
  else if (flaw === 3) headers.push("Transfer-Encoding: chunked");
  else if (flaw === 4)
    headers.push(`Content-Length: ${body.length + 20}`); // the body stops short
  else headers.push(`Content-Length: ${body.length}`);
  const head = flaw === 5 ? `${method} ${target} HTTP/9.9` : `${method} ${target} HTTP/1.1`;
  const payload = flaw === 3 ? "zz\r\nnot chunked\r\n" : body;
  const text =
    flaw === 6
      ? `${head}\r\n${headers.join("\r\n")}`
      : `${head}\r\n${headers.join("\r\n")}\r\n\r\n${payload}`;
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port: Number(new URL(url).port) });
    let received = "";
    const giveUp = setTimeout(() => socket.destroy(), 10_000); // well past the 0.3 s limit, on a starved machine too
    socket.setEncoding("latin1").on("data", (chunk: string) => (received += chunk));
    socket.on("error", () => undefined);
    socket.on("connect", () => socket.write(text, "latin1"));
    socket.on("close", () => {
      clearTimeout(giveUp);
      const label = `raw ${method} ${target} flaw ${flaw}`;
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1]);
      if (!Number.isInteger(status)) {
        tally.requests++;
        if (tally.problems.length < 20)
          tally.problems.push(`${label}: no answer (${JSON.stringify(received.slice(0, 80))})`);
        resolve();
        return;
      }
      const [headText = "", ...rest] = received.split("\r\n\r\n");
      const bodyText = rest.join("\r\n\r\n");
      // The first answer only: a 408 may follow a refusal that came before the body.
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(headText)?.[1] ?? 0);
      let json: unknown;
      try {
        json = /content-type: application\/json/i.test(headText)
          ? JSON.parse(bodyText.slice(0, length))
          : undefined;
      } catch {
        json = undefined; // recorded as not the error shape
      }
      record(
        tally,
        label,
        { status, headers: new Headers(), text: bodyText, json },
        method === "HEAD" ? "HEAD" : "GET",
        undefined,
        reference,
      );
      resolve();
    });
  });
}

/** Sends `fetches` requests through fetch, then `raws` raw ones, from two tenants; returns the tally. */
async function fuzz(
  server: FuzzServer,
  seed: number,
  fetches: number,
  raws: number,
): Promise<{ tally: Tally; alice: Tenant; bob: Tenant }> {
  const r = seededRandom(seed);
  const alice = await newTenant(server, "alice");
  const bob = await newTenant(server, "bob");
  const tally: Tally = { statuses: new Map(), requests: 0, crossTenant: 0, problems: [] };
  let sent = 0;
  server.setRequestTimeout(DEFAULT_REQUEST_TIMEOUT);
  const worker = async () => {
    while (sent < fetches) {
      sent++;
      await fetchOne(server, r, tally, alice, bob);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  server.setRequestTimeout(SHORT_REQUEST_TIMEOUT);
  let raw = 0;
  const rawWorker = async () => {
    while (raw < raws) {
      raw++;
      await rawOne(server, r, tally, r.chance(0.5) ? alice.key : bob.key);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY * 2 }, rawWorker));
  return { tally, alice, bob };
}

function summary(tally: Tally): string {
  const statuses = [...tally.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  return `${tally.requests} requests, ${tally.crossTenant} cross-tenant; ${statuses.join(", ")}`;
}

/** What must hold after any run: nothing seen across tenants, no key or secret where it must not be. */
async function expectTenancyAndSecrets(server: FuzzServer, alice: Tenant, bob: Tenant): Promise<void> {
  for (const [me, other] of [
    [alice, bob],
    [bob, alice],
  ] as const) {
    const listed = await call(server.url, "GET", `${PATH}?results_per_page=1000`, { key: me.key });
    expect(listed.status).toBe(200);
    const seen = new Set(
      (listed.json as { data: Array<{ id: number | string }> }).data.map((h) => Number(h.id)),
    );
    expect(other.ids.length).toBeGreaterThan(0); // else there is nothing to hide
    expect(other.ids.filter((id) => seen.has(id))).toEqual([]);
  }
  const log = server.logLines.join("");
  expect(log.length).toBeGreaterThan(0);
  const stored = await server.stored();
  expect(stored.length).toBeGreaterThan(0);
  for (const key of [alice.key, bob.key]) {
    expect(log.includes(key)).toBe(false);
    expect(stored.includes(key)).toBe(false);
  }
  expect(log.includes(SECRET_MARK)).toBe(false);
}

describe("fuzz", () => {
  it(
    `answers ${FETCH_REQUESTS + RAW_REQUESTS} fuzzed requests without a 5xx, as declared, with tenancy and secrets intact`,
    async () => {
      const server = await startFuzzServer("reference");
      try {
        const { tally, alice, bob } = await fuzz(server, SEED, FETCH_REQUESTS, RAW_REQUESTS);
        console.log(`fuzz (seed ${SEED}): ${summary(tally)}`);
        expect(tally.problems, `seed ${SEED}`).toEqual([]);
        expect(tally.requests).toBe(FETCH_REQUESTS + RAW_REQUESTS);
        expect([...tally.statuses.keys()].filter((s) => s >= 500)).toEqual([]);
        // The run reached the interesting answers, not only one kind of refusal.
        for (const status of [200, 201, 204, 400, 401, 404, 405, 408, 413, 415, 431]) {
          expect(tally.statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);
        }
        expect(alice.ids.length + bob.ids.length).toBeGreaterThan(50 / SCALE);
        expect(tally.crossTenant).toBeGreaterThan(200 / SCALE);
        await expectTenancyAndSecrets(server, alice, bob);
      } finally {
        await server.close();
      }
    },
    RUN_TIMEOUT,
  );

  it.each(EMULATED_VERSIONS)(
    `answers ${EMULATED_FETCHES + EMULATED_RAWS} fuzzed requests as deployed version %s without a 5xx`,
    async (version) => {
      const server = await startFuzzServer(`emulated-${version}`, version);
      try {
        const { tally, alice, bob } = await fuzz(
          server,
          SEED + Number(version),
          EMULATED_FETCHES,
          EMULATED_RAWS,
        );
        console.log(`fuzz ${version} (seed ${SEED + Number(version)}): ${summary(tally)}`);
        expect(tally.problems).toEqual([]);
        expect(tally.requests).toBe(EMULATED_FETCHES + EMULATED_RAWS);
        expect(alice.ids.length + bob.ids.length).toBeGreaterThan(10 / SCALE);
        await expectTenancyAndSecrets(server, alice, bob);
      } finally {
        await server.close();
      }
    },
    RUN_TIMEOUT,
  );
});
