/**
 * The client's transport over real sockets, against scripted servers: the request line and key,
 * keep-alive, retries (jitter, Retry-After, the limit, idempotent requests only), timeouts, refused
 * connections, a create never sent twice, and the API key in no error, inspection or log. On a virtual
 * clock, so no retry really waits.
 */
import { inspect } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  AuthenticationError,
  CreateOutcomeUnknownError,
  InternalServerError,
  NotFoundError,
  NotificationHandlersClient,
  ValidationError,
  type ClientOptions,
} from "../../sdk/client";
import {
  apiError,
  formFields,
  handler,
  json,
  scriptedServerForTest,
  virtualClock,
  type ScriptedServer,
} from "../support/servers/scripted-server";
import { closedPort } from "../support/servers/server-under-test";

const KEY = "nh_secret_3c1f0b9e8d7a6b5c4d3e2f1a";

function clientFor(baseURL: string, options: Partial<ClientOptions> = {}) {
  const clock = virtualClock();
  const sleeps = clock.sleeps;
  const logs: string[] = [];
  const client = new NotificationHandlersClient({
    baseURL,
    apiKey: KEY,
    sleep: clock.sleep,
    now: clock.now,
    random: () => 0,
    logger: {
      debug: (m) => logs.push(m),
      info: (m) => logs.push(m),
      warn: (m) => logs.push(m),
      error: (m) => logs.push(m),
    },
    ...options,
  });
  onTestFinished(() => client.close());
  return { client, sleeps, logs };
}

describe("requests", () => {
  it("sends the Bearer key and multipart forms under a base-URL prefix (no trailing slash)", async () => {
    const server = await scriptedServerForTest((call, res) => {
      if (call.method === "POST") json(res, 201, { data: { id: 9 } });
      else json(res, 200, { data: handler(9) });
    });
    const { client } = clientFor(`${server.url}/site/app`);
    const created = await client.notificationHandlers.create({
      name: "Ops",
      type: "telegram",
      telegram: "123:abc",
      telegram_chat_id: "-100",
      is_enabled: true,
    });
    expect(created).toEqual({ id: 9, handler: null });
    await client.notificationHandlers.update(9, { is_enabled: false });
    await client.notificationHandlers.retrieve(9);

    const [create, update, read] = server.calls;
    expect(create?.method).toBe("POST");
    expect(create?.url).toBe("/site/app/api/notification-handlers");
    expect(create?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(create?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(formFields(create!)).toEqual({
      name: "Ops",
      type: "telegram",
      telegram: "123:abc",
      telegram_chat_id: "-100",
      is_enabled: "1",
    });
    // Deployed instances read `true` as 0, so the flag always goes as 1/0
    // (docs/api.md#deployed-is-enabled-form).
    expect(update?.url).toBe("/site/app/api/notification-handlers/9");
    expect(formFields(update!)).toEqual({ is_enabled: "0" });
    expect(read?.method).toBe("GET");
    expect(read?.url).toBe("/site/app/api/notification-handlers/9");
  });

  it("writes the request line as URL resolution would: encoded prefix, id, form-encoded query", async () => {
    const server = await scriptedServerForTest((call, res) => {
      if (call.url.includes("?")) json(res, 200, { data: [], meta: { total: 0 } });
      else json(res, 404, { errors: [{ title: "Not found" }] });
    });
    const { client } = clientFor(`${server.url}/sité/a b`);
    await client.notificationHandlers.list({ search: "ops 100% & co+", results_per_page: 10, page: 3 });
    const missing = await client.notificationHandlers.retrieve(42).catch((err: unknown) => err);
    expect(server.calls.map((c) => c.url)).toEqual([
      "/sit%C3%A9/a%20b/api/notification-handlers/?search=ops+100%25+%26+co%2B&results_per_page=10&page=3",
      "/sit%C3%A9/a%20b/api/notification-handlers/42",
    ]);
    expect(missing).toMatchObject({ method: "GET", path: "/sit%C3%A9/a%20b/api/notification-handlers/42" });
  });

  it("reuses one keep-alive connection for sequential calls", async () => {
    const server = await scriptedServerForTest((_call, res) => json(res, 200, { data: handler(1) }));
    const { client } = clientFor(`${server.url}/`);
    for (let i = 0; i < 10; i++) await client.notificationHandlers.retrieve(1);
    // undici's pool may open a second socket while the first is finishing its answer; never one per call.
    expect(new Set(server.calls.map((c) => c.remotePort)).size).toBeLessThanOrEqual(2);
  });
});

describe("data", () => {
  it("returns a success's data untouched even when it contains the key's text (a short key)", async () => {
    const server = await scriptedServerForTest((_call, res) =>
      json(res, 200, { data: handler(1, { name: "kkk links k" }) }),
    );
    const { client } = clientFor(server.url, { apiKey: "k" });
    expect((await client.notificationHandlers.retrieve(1)).name).toBe("kkk links k");
  });
});

describe("retries", () => {
  it("retries a read through a connection reset, then a 500, to the 200", async () => {
    const server = await scriptedServerForTest((call, res, req) => {
      if (call.n === 1) req.socket.destroy();
      else if (call.n === 2) apiError(res, 500, "The server encountered an internal error.");
      else json(res, 200, { data: handler(3) });
    });
    const { client, sleeps, logs } = clientFor(server.url);
    const h = await client.notificationHandlers.retrieve(3);
    expect(h.id).toBe(3);
    expect(server.calls).toHaveLength(3);
    expect(client.stats).toMatchObject({ requests: 3, retries: 2, rateLimited: 0, backoffMs: 1500 });
    expect(sleeps).toEqual([500, 1000]); // exponential backoff (jitter pinned by random = 0)
    expect(logs.filter((l) => l.includes("retrying"))).toHaveLength(2);
  });

  it("applies jitter: up to a quarter less than the exponential delay", async () => {
    const server = await scriptedServerForTest((call, res) =>
      call.n === 1 ? apiError(res, 503, "Busy.") : json(res, 200, { data: handler(1) }),
    );
    const { client, sleeps } = clientFor(server.url, { random: () => 0.999 });
    await client.notificationHandlers.retrieve(1);
    expect(sleeps).toEqual([375]);
  });

  it("honours Retry-After on a 503", async () => {
    const server = await scriptedServerForTest((call, res) =>
      call.n === 1
        ? apiError(res, 503, "Busy.", { headers: { "retry-after": "7" } })
        : json(res, 200, { data: handler(1) }),
    );
    const { client, sleeps } = clientFor(server.url);
    await client.notificationHandlers.retrieve(1);
    expect(sleeps).toEqual([7000]);
  });

  it("gives up after maxRetries with the last error", async () => {
    const server = await scriptedServerForTest((_call, res) =>
      apiError(res, 500, "The server encountered an internal error."),
    );
    const { client } = clientFor(server.url, { maxRetries: 3 });
    const err = await client.notificationHandlers.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).message).toBe(
      "GET /api/notification-handlers/?page=1: 500 The server encountered an internal error.",
    );
    expect(server.calls).toHaveLength(4);
  });

  it("does not retry a 4xx", async () => {
    const server = await scriptedServerForTest((_call, res) =>
      apiError(res, 404, "The resource you are looking for does not exist."),
    );
    const { client } = clientFor(server.url);
    await expect(client.notificationHandlers.retrieve(5)).rejects.toBeInstanceOf(NotFoundError);
    expect(server.calls).toHaveLength(1);
  });

  it("retries an update (idempotent in effect) after a connection reset", async () => {
    const server = await scriptedServerForTest((call, res, req) =>
      call.n === 1 ? req.socket.destroy() : json(res, 200, { data: { id: 4 } }),
    );
    const { client } = clientFor(server.url);
    expect(await client.notificationHandlers.update(4, { name: "n" })).toEqual({ id: 4, raw: { id: 4 } });
    expect(server.calls).toHaveLength(2);
  });

  it("a delete whose first attempt may have succeeded treats the retry's 404 as done", async () => {
    const server = await scriptedServerForTest((call, res, req) =>
      call.n === 1
        ? req.socket.destroy()
        : apiError(res, 404, "The resource you are looking for does not exist."),
    );
    const { client } = clientFor(server.url);
    await expect(client.notificationHandlers.delete(8)).resolves.toBeUndefined();
    expect(server.calls.map((c) => c.method)).toEqual(["DELETE", "DELETE"]);
  });

  it("a delete of a missing handler on the first attempt is a NotFoundError", async () => {
    const server = await scriptedServerForTest((_call, res) =>
      apiError(res, 404, "The resource you are looking for does not exist."),
    );
    const { client } = clientFor(server.url);
    await expect(client.notificationHandlers.delete(8)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("connection failures", () => {
  it("a refused connection is an APIConnectionError, retried for reads", async () => {
    const port = await closedPort();
    const { client, sleeps } = clientFor(`http://127.0.0.1:${port}`);
    const err = await client.notificationHandlers.retrieve(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err).not.toBeInstanceOf(CreateOutcomeUnknownError);
    expect((err as APIConnectionError).code).toBe("connection_error");
    expect((err as APIConnectionError).message).toMatch(
      /^GET \/api\/notification-handlers\/1: connection error: .*ECONNREFUSED/,
    );
    expect(client.stats.requests).toBe(3);
    expect(sleeps).toHaveLength(2);
  });

  it("times out a server that never answers (APIConnectionTimeoutError), and retries a read", async () => {
    const server = await scriptedServerForTest(() => undefined); // never answers
    const { client } = clientFor(server.url, { timeout: 150, maxRetries: 1 });
    const err = await client.notificationHandlers.retrieve(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect((err as Error).message).toBe("GET /api/notification-handlers/1: request timed out after 150 ms");
    expect(server.calls).toHaveLength(2);
  });

  it("times out a server that stalls in the middle of the body", async () => {
    const server = await scriptedServerForTest((_call, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"data":');
    });
    const { client } = clientFor(server.url, { timeout: 150, maxRetries: 0 });
    await expect(client.notificationHandlers.retrieve(1)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
  });

  it("per-call options override timeout and maxRetries", async () => {
    const server = await scriptedServerForTest(() => undefined);
    const { client } = clientFor(server.url, { timeout: 10_000, maxRetries: 5 });
    await expect(
      client.notificationHandlers.retrieve(1, { timeout: 100, maxRetries: 0 }),
    ).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.calls).toHaveLength(1);
  });
});

describe("creates are never sent twice", () => {
  it("a reset after the request was sent is CreateOutcomeUnknownError, and the server saw one request", async () => {
    const server = await scriptedServerForTest((_call, _res, req) => req.socket.destroy());
    const { client } = clientFor(server.url, { maxRetries: 5 });
    const err = await client.notificationHandlers
      .create({ name: "Ops", type: "email", email: "ops@example.com" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CreateOutcomeUnknownError);
    expect((err as CreateOutcomeUnknownError).code).toBe("create_outcome_unknown");
    expect((err as Error).message).toMatch(
      /^POST \/api\/notification-handlers: the connection failed after the request was sent, so the handler may have been created/,
    );
    expect((err as Error).cause).toBeInstanceOf(APIConnectionError);
    expect(server.calls).toHaveLength(1);
    expect(client.stats.retries).toBe(0);
  });

  it("a create that times out is CreateOutcomeUnknownError, sent once", async () => {
    const server = await scriptedServerForTest(() => undefined);
    const { client } = clientFor(server.url, { timeout: 150, maxRetries: 5 });
    const err = await client.notificationHandlers
      .create({ name: "Ops", type: "internal_notification" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CreateOutcomeUnknownError);
    expect((err as Error).cause).toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.calls).toHaveLength(1);
  });

  it("a create answered 500 is not retried (it may have been stored)", async () => {
    const server = await scriptedServerForTest((_call, res) =>
      apiError(res, 500, "The server encountered an internal error."),
    );
    const { client } = clientFor(server.url, { maxRetries: 5 });
    await expect(
      client.notificationHandlers.create({ name: "Ops", type: "internal_notification" }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(server.calls).toHaveLength(1);
  });

  it("a create answered 429 is retried after the reset (the server did nothing)", async () => {
    const server = await scriptedServerForTest((call, res) =>
      call.n === 1
        ? apiError(res, 429, "You reached the limit of requests in one minute, please wait.", {
            headers: { "x-ratelimit-limit": "60", "x-ratelimit-reset": "12" },
          })
        : json(res, 201, { data: { id: 31 } }),
    );
    const { client, sleeps } = clientFor(server.url);
    expect(
      (await client.notificationHandlers.create({ name: "Ops", type: "internal_notification" })).id,
    ).toBe(31);
    expect(server.calls).toHaveLength(2);
    expect(sleeps).toEqual([13_000]); // X-RateLimit-Reset + the 1 s margin
    expect(client.stats).toMatchObject({ rateLimited: 1, retries: 1, pacedMs: 13_000 });
  });

  it("a create whose connection was refused (certainly not sent) is retried", async () => {
    const port = await closedPort();
    let server: ScriptedServer | undefined;
    const { client } = clientFor(`http://127.0.0.1:${port}`, {
      // Start the server on that port while the client backs off.
      sleep: async () => {
        server ??= await scriptedServerForTest((_call, res) => json(res, 201, { data: { id: 77 } }), port);
      },
    });
    const created = await client.notificationHandlers.create({ name: "Ops", type: "internal_notification" });
    expect(created.id).toBe(77);
    expect(server?.calls).toHaveLength(1);
    expect(client.stats.retries).toBe(1);
  });
});

describe("the API key never leaks", () => {
  it("is absent from every error's message, stack, JSON and inspection, and from the logs", async () => {
    const server = await scriptedServerForTest((call, res, req) => {
      const path = call.url;
      if (path.endsWith("/1"))
        apiError(res, 401, "You do not have access to the API.", { detail: `Unknown key ${KEY}` });
      else if (path.endsWith("/2")) apiError(res, 500, `Crashed while handling Bearer ${KEY}`);
      else if (path.endsWith("/3")) req.socket.destroy();
      else if (call.method === "POST" && path.endsWith("handlers")) req.socket.destroy();
      else if (call.method === "POST")
        apiError(res, 401, "You must fill all the required fields.", { detail: KEY });
      else json(res, 200, {});
    });
    const { client, logs } = clientFor(server.url, { maxRetries: 1 });
    const hanging = await scriptedServerForTest(() => undefined);
    const { client: slow, logs: slowLogs } = clientFor(hanging.url, { timeout: 100, maxRetries: 0 });
    const refused = clientFor(`http://127.0.0.1:${await closedPort()}`, { maxRetries: 0 });

    const errors = await Promise.all([
      client.notificationHandlers.retrieve(1).catch((e: unknown) => e),
      client.notificationHandlers.retrieve(2).catch((e: unknown) => e),
      client.notificationHandlers.retrieve(3).catch((e: unknown) => e),
      client.notificationHandlers
        .create({ name: "x", type: "internal_notification" })
        .catch((e: unknown) => e),
      client.notificationHandlers.update(5, { name: "x" }).catch((e: unknown) => e),
      slow.notificationHandlers.retrieve(1).catch((e: unknown) => e),
      slow.notificationHandlers.create({ name: "x", type: "internal_notification" }).catch((e: unknown) => e),
      refused.client.notificationHandlers.list().catch((e: unknown) => e),
    ]);
    expect(errors[0]).toBeInstanceOf(AuthenticationError);
    expect((errors[0] as Error).message).toContain("Unknown key [REDACTED]");
    expect(errors[1]).toBeInstanceOf(InternalServerError);
    expect(errors[2]).toBeInstanceOf(APIConnectionError);
    expect(errors[3]).toBeInstanceOf(CreateOutcomeUnknownError);
    expect(errors[4]).toBeInstanceOf(ValidationError);
    expect(errors[5]).toBeInstanceOf(APIConnectionTimeoutError);
    expect(errors[6]).toBeInstanceOf(CreateOutcomeUnknownError);
    expect(errors[7]).toBeInstanceOf(APIConnectionError);

    for (const err of errors) {
      expect(err).toBeInstanceOf(Error);
      const e = err as Error;
      expect(e.message).not.toContain(KEY);
      expect(e.stack ?? "").not.toContain(KEY);
      expect(JSON.stringify(e)).not.toContain(KEY);
      expect(inspect(e, { showHidden: true, depth: Infinity })).not.toContain(KEY);
      expect(String(e)).not.toContain(KEY);
    }
    for (const line of [...logs, ...slowLogs, ...refused.logs]) expect(line).not.toContain(KEY);
    expect(logs.length).toBeGreaterThan(0);
  });
});
