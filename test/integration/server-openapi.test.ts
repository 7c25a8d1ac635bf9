/** The served OpenAPI description, and the check the server tests run every answer through. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../server";
import { specProblems } from "../support/servers/openapi-check";
import { type TestServer, startServer } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ rateLimit: 1 });
});
afterAll(() => server.close());

describe("GET /api/openapi.json", () => {
  it("serves the generated document without a key, outside the rate limit", async () => {
    const key = await server.key();
    expect((await server.call("GET", PATH, { key })).status).toBe(200);
    expect((await server.call("GET", PATH, { key })).status).toBe(429);
    for (const options of [{}, { key }]) {
      const answer = await server.call("GET", "/api/openapi.json", options);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(answer.json).toEqual(openApiDocument());
    }
    const put = await server.call("PUT", "/api/openapi.json");
    expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });

  it("is not served by an emulated deployed version, which has no such path", async () => {
    const emulated = await startServer({ emulate: "2026" });
    try {
      expect((await emulated.call("GET", "/api/openapi.json")).status).toBe(404);
    } finally {
      await emulated.close();
    }
  });
});

describe("the answer check", () => {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers({ "content-type": "application/json; charset=utf-8", ...headers }),
    text: JSON.stringify(body),
    json: body,
  });
  const handler = {
    id: 1,
    type: "telegram",
    name: "ops",
    settings: { telegram: "1:abc", telegram_chat_id: "-5" },
    is_enabled: true,
    last_datetime: null,
    datetime: "2024-01-01 00:00:00",
  };

  it("passes an answer as the document declares it", () => {
    expect(specProblems("GET", `${PATH}/1`, json(200, { data: handler }))).toEqual([]);
  });

  it.each([
    [
      "a field the type does not have",
      { data: { ...handler, settings: { ...handler.settings, email: "a@b.co" } } },
    ],
    ["a missing field of the type", { data: { ...handler, settings: { telegram: "1:abc" } } }],
    ["an extra property", { data: { ...handler, user_id: 3 } }],
    ["a datetime in another format", { data: { ...handler, datetime: "2024-01-01T00:00:00Z" } }],
    ["is_enabled as a number", { data: { ...handler, is_enabled: 1 } }],
    ["an unknown type", { data: { ...handler, type: "fax" } }],
  ])("finds %s", (_what, body) => {
    expect(specProblems("GET", `${PATH}/1`, json(200, body))).not.toEqual([]);
  });

  it("finds an undeclared status, a missing required header and a wrong error shape", () => {
    expect(specProblems("GET", `${PATH}/1`, json(418, { errors: [{ title: "t", status: 418 }] }))).toEqual([
      "status 418 is not declared",
    ]);
    const limited = json(429, { errors: [{ title: "t", status: 429 }] }, { "x-ratelimit-reset": "3" });
    expect(specProblems("GET", PATH, limited)).toEqual(["required header Retry-After is missing"]);
    expect(specProblems("GET", PATH, json(400, { error: "Bad Request" }))).not.toEqual([]);
    expect(specProblems("FOO", PATH, json(405, { error: "Method Not Allowed" }))).not.toEqual([]);
  });
});
