/**
 * What the HTTP parser refuses before any route sees it, and requests that stop arriving: each is
 * answered in the API's error shape with the status that says what is wrong
 * (docs/api.md#http-parser-refusals).
 */
import { createConnection } from "node:net";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installErrorHandling } from "../../server/errors";
import { registerHealthRoutes } from "../../server/routes/health";
import { AllowedMethods } from "../../server/routes/methods";
import { type TestServer, openTestRepository, startServer } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
/** The arrival limit of the server under test, short so that stalls are cut quickly. */
const REQUEST_TIMEOUT = 400; // 0.4 s

let server: TestServer;
let key: string;
let port: number;

beforeAll(async () => {
  server = await startServer({ requestTimeout: REQUEST_TIMEOUT });
  key = await server.key();
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** One raw answer read off a socket. */
interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  json: unknown;
  /** Milliseconds from connecting until the server closed the connection. */
  elapsed: number;
  /** Whether the server closed the connection (rather than the test giving up on it). */
  closed: boolean;
}

/**
 * Writes `chunks` to a new connection (a pause of `gap` ms between them) and reads the first answer
 * until the server closes the connection, or `wait` ms pass.
 */
function rawRequest(
  chunks: readonly string[],
  options: { gap?: number; wait?: number; port?: number } = {},
): Promise<RawAnswer> {
  const { gap = 0, wait = 5_000, port: target = port } = options; // 5 s at most, so a test never hangs
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = createConnection({ host: "127.0.0.1", port: target });
    let received = "";
    let closed = false;
    const giveUp = setTimeout(() => socket.destroy(), wait);
    socket.setEncoding("latin1").on("data", (chunk: string) => (received += chunk));
    socket.on("error", () => undefined); // a reset after the answer is fine; the answer is what counts
    socket.on("end", () => (closed = true));
    socket.on("close", () => {
      clearTimeout(giveUp);
      const elapsed = Date.now() - started;
      const [head = "", ...rest] = received.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const status = Number(statusLine.split(" ")[1]);
      if (!Number.isInteger(status)) {
        reject(new Error(`no answer after ${elapsed} ms: ${JSON.stringify(received.slice(0, 200))}`));
        return;
      }
      const headers = new Map(
        lines.map((line) => [
          line.slice(0, line.indexOf(":")).toLowerCase(),
          line.slice(line.indexOf(":") + 1).trim(),
        ]),
      );
      const length = Number(headers.get("content-length") ?? 0);
      const body = rest.join("\r\n\r\n").slice(0, length);
      const isJson = headers.get("content-type")?.startsWith("application/json") === true && body !== "";
      try {
        resolve({ status, headers, json: isJson ? JSON.parse(body) : undefined, elapsed, closed });
      } catch (error) {
        reject(new Error(`the answer is not JSON: ${String(error)}`)); // a JSON answer that is not JSON fails the test, not the run
      }
    });
    socket.on("connect", () => {
      void (async () => {
        for (const [index, chunk] of chunks.entries()) {
          if (index > 0 && gap > 0) await new Promise((r) => setTimeout(r, gap));
          if (socket.destroyed) return;
          socket.write(chunk, "latin1");
        }
      })();
    });
  });
}

function errorOf(answer: RawAnswer) {
  return (answer.json as { errors: Array<{ title: string; status: number; detail?: string }> }).errors;
}

describe("methods the parser refuses", () => {
  it.each([
    ["an unknown method", "FOO"],
    ["a lowercase method", "get"],
    ["CONNECT", "CONNECT"],
  ])("answers %s on the collection with 405, Allow and the error body", async (_what, method) => {
    const answer = await rawRequest([`${method} ${PATH} HTTP/1.1\r\nHost: a\r\n\r\n`]);
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD, POST");
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(errorOf(answer)).toEqual([
      {
        title: "The method is not allowed on this resource.",
        status: 405,
        detail: `${method} is not allowed here; allowed: GET, HEAD, POST.`,
      },
    ]);
  });

  it("names the item's methods for an unknown method on an item, and answers 404 off the API", async () => {
    const item = await rawRequest([`FOO ${PATH}/1 HTTP/1.1\r\nHost: a\r\n\r\n`]);
    expect(item.status).toBe(405);
    expect(item.headers.get("allow")).toBe("GET, HEAD, POST, DELETE");
    const elsewhere = await rawRequest(["FOO /elsewhere HTTP/1.1\r\nHost: a\r\n\r\n"]);
    expect(elsewhere.status).toBe(404);
    expect(errorOf(elsewhere)[0]?.title).toBe("The resource you are looking for does not exist.");
    const tunnel = await rawRequest(["CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n"]);
    expect(tunnel.status).toBe(404);
  });

  it("answers a method Node routes but the path does not allow (PROPFIND) the same way", async () => {
    const answer = await server.call("PROPFIND", `${PATH}/1`, { key });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD, POST, DELETE");
  });
});

describe("malformed requests", () => {
  it("answers headers over 16 KiB with 431", async () => {
    const answer = await rawRequest([
      `GET ${PATH} HTTP/1.1\r\nHost: a\r\nX-Big: ${"a".repeat(17_000)}\r\n\r\n`,
    ]);
    expect(answer.status).toBe(431);
    expect(errorOf(answer)).toEqual([
      { title: "The request headers are too large.", status: 431, detail: "The limit is 16384 bytes." },
    ]);
  });

  it.each([
    ["a Content-Length that is not a number", "Content-Length: abc\r\n"],
    ["two different Content-Lengths", "Content-Length: 1\r\nContent-Length: 2\r\n"],
    ["Content-Length with chunked Transfer-Encoding", "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n"],
  ])("answers %s with 400", async (_what, headers) => {
    const answer = await rawRequest([`POST ${PATH} HTTP/1.1\r\nHost: a\r\n${headers}\r\nabc`]);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)[0]?.title).toBe("The request is not valid HTTP.");
    expect(answer.closed).toBe(true);
  });

  it("answers a request line that is not HTTP with 400", async () => {
    const answer = await rawRequest(["\x00\x01\x02 garbage\r\n\r\n"]);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)[0]?.status).toBe(400);
  });
});

describe("requests that stop arriving", () => {
  it("cuts headers that stall with 408 within a second of the limit", async () => {
    const answer = await rawRequest([`GET ${PATH} HTTP/1.1\r\nHost: a\r\n`]);
    expect(answer.status).toBe(408);
    expect(errorOf(answer)).toEqual([
      {
        title: "The request did not arrive in time.",
        status: 408,
        detail: `Its headers and body must arrive within ${REQUEST_TIMEOUT / 1000} s.`,
      },
    ]);
    expect(answer.closed).toBe(true);
    expect(answer.elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 50);
    expect(answer.elapsed).toBeLessThan(REQUEST_TIMEOUT + 1_000);
  });

  it("cuts a body that stalls with 408 within a second of the limit", async () => {
    const head = [
      `POST ${PATH} HTTP/1.1`,
      "Host: a",
      `Authorization: Bearer ${key}`,
      "Content-Type: application/x-www-form-urlencoded",
      "Content-Length: 100",
    ].join("\r\n");
    const answer = await rawRequest([`${head}\r\n\r\nname=slow`]);
    expect(answer.status).toBe(408);
    expect(answer.closed).toBe(true);
    expect(answer.elapsed).toBeLessThan(REQUEST_TIMEOUT + 1_000);
    // Nothing was created from the part that arrived.
    const listed = await server.call("GET", PATH, { key });
    expect((listed.json as { meta: { total: number } }).meta.total).toBe(0);
  });

  it("cuts a client that trickles its headers a byte at a time", async () => {
    const request = `GET ${PATH} HTTP/1.1\r\nHost: a\r\nX-Slow: ${"s".repeat(40)}\r\n\r\n`;
    const answer = await rawRequest([...request], { gap: 20 }); // the whole request would take ~1.5 s
    expect(answer.status).toBe(408);
    expect(answer.elapsed).toBeLessThan(REQUEST_TIMEOUT + 1_000);
  });

  it("lets a slow request through that arrives within the limit", async () => {
    const head = `GET ${PATH} HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;
    const answer = await rawRequest([head.slice(0, 20), head.slice(20)], { gap: REQUEST_TIMEOUT / 4 });
    expect(answer.status).toBe(200);
  });
});

describe("ids", () => {
  let own: TestServer;
  let ownKey: string;
  beforeAll(async () => {
    own = await startServer();
    ownKey = await own.key();
    for (const name of ["one", "two", "three"]) {
      await own.call("POST", PATH, { key: ownKey, form: { name, type: "internal_notification" } });
    }
  });
  afterAll(() => own.close());

  it.each(["0003", "03", "+3", "3.0", "3e0", "0x3", "%203", "3%20"])(
    "answers 404 to %j, which is not how handler 3 is written",
    async (id) => {
      expect((await own.call("GET", `${PATH}/3`, { key: ownKey })).status).toBe(200);
      const answer = await own.call("GET", `${PATH}/${id}`, { key: ownKey });
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({
        errors: [{ title: "The resource you are looking for does not exist.", status: 404 }],
      });
      const update = await own.call("POST", `${PATH}/${id}`, { key: ownKey, form: { name: "renamed" } });
      expect(update.status).toBe(404);
      expect((await own.call("DELETE", `${PATH}/${id}`, { key: ownKey })).status).toBe(404);
      const three = await own.call("GET", `${PATH}/3`, { key: ownKey });
      expect((three.json as { data: { name: string } }).data.name).toBe("three");
    },
  );
});

describe("probes", () => {
  it("answers /healthz and /readyz without a key and outside the rate limit", async () => {
    const limited = await startServer({ rateLimit: 1 });
    try {
      const limitedKey = await limited.key();
      expect((await limited.call("GET", PATH, { key: limitedKey })).status).toBe(200);
      expect((await limited.call("GET", PATH, { key: limitedKey })).status).toBe(429);
      for (let i = 0; i < 3; i++) {
        const health = await limited.call("GET", "/healthz", { key: limitedKey });
        expect([health.status, health.json]).toEqual([200, { status: "ok" }]);
        expect(health.headers.get("x-ratelimit-limit")).toBeNull();
        const ready = await limited.call("GET", "/readyz");
        expect([ready.status, ready.json]).toEqual([200, { status: "ready" }]);
        expect(ready.headers.get("cache-control")).toBe("no-store");
      }
      expect((await limited.call("HEAD", "/readyz")).status).toBe(200);
      const put = await limited.call("PUT", "/healthz");
      expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    } finally {
      await limited.close();
    }
  });

  it("answers /readyz with 503 when the database does not answer, /healthz still 200", async () => {
    const broken = await startServer();
    try {
      await broken.repository.close();
      const ready = await broken.call("GET", "/readyz");
      expect(ready.status).toBe(503);
      expect(ready.json).toEqual({
        errors: [
          { title: "The service is not ready.", status: 503, detail: "The database does not answer." },
        ],
      });
      expect((await broken.call("GET", "/healthz")).status).toBe(200);
    } finally {
      await broken.app.close();
    }
  });
});

describe("as a deployed version", () => {
  it("answers a method the parser refuses with 404 and no Allow, as deployed instances do (docs/api.md#emulation-parser-refusals)", async () => {
    const emulated = await startServer({ emulate: "2026" });
    try {
      const answer = await rawRequest([`FOO ${PATH}/1 HTTP/1.1\r\nHost: a\r\n\r\n`], {
        port: Number(new URL(emulated.url).port),
      });
      expect(answer.status).toBe(404);
      expect(answer.headers.has("allow")).toBe(false);
    } finally {
      await emulated.close();
    }
  });
});

describe("with the feature off", () => {
  it("answers the parser's refusals on the API's paths with the HTML page, as the routes do", async () => {
    const off = await startServer({ featureOff: true });
    try {
      const offPort = Number(new URL(off.url).port);
      for (const method of ["FOO", "CONNECT"]) {
        const answer = await rawRequest([`${method} ${PATH} HTTP/1.1\r\nHost: a\r\n\r\n`], { port: offPort });
        expect(answer.status).toBe(404);
        expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      }
      const elsewhere = await rawRequest(["FOO /healthz HTTP/1.1\r\nHost: a\r\n\r\n"], { port: offPort });
      expect([elsewhere.status, elsewhere.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    } finally {
      await off.close();
    }
  });
});

describe("readiness while shutting down", () => {
  it("answers 503 once closing has begun, while liveness still answers", async () => {
    const app = Fastify();
    const repository = await openTestRepository();
    let closing = false;
    try {
      installErrorHandling(app);
      registerHealthRoutes(app, { repository, closing: () => closing, methods: new AllowedMethods() });
      expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
      closing = true;
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        errors: [{ title: "The service is not ready.", status: 503, detail: "The server is shutting down." }],
      });
      expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    } finally {
      await app.close();
      await repository.close();
    }
  });
});
