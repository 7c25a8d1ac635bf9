/**
 * `--emulate`: the error answers of deployed instances, each pinned to the item of docs/api.md#deployed
 * ("Errors") it reproduces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatedVersion } from "../../server";
import { type TestServer, startServer } from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const VERSIONS = ["2023", "2025", "2026"] as const;

const servers = new Map<EmulatedVersion, TestServer>();
const keys = new Map<EmulatedVersion, string>();

beforeAll(async () => {
  for (const version of VERSIONS) {
    const server = await startServer({ emulate: version, disabledTypes: ["slack"] });
    servers.set(version, server);
    keys.set(version, await server.key("alice"));
  }
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

function on(version: EmulatedVersion): { server: TestServer; key: string } {
  const server = servers.get(version);
  const key = keys.get(version);
  if (server === undefined || key === undefined) throw new Error(`no server for ${version}`);
  return { server, key };
}

async function createEmail(version: EmulatedVersion): Promise<number> {
  const { server, key } = on(version);
  const answer = await server.call("POST", PATH, {
    key,
    form: { name: "Ops", type: "email", email: "ops@example.com" },
  });
  expect(answer.status, answer.text).toBe(201);
  return (answer.json as { data: { id: number } }).data.id;
}

const VALIDATION_TITLES = [
  ["2023", "You must fill all the fields."],
  ["2025", "You must fill all the required fields."],
  ["2026", "You must fill all the required fields."],
] as const;

describe("docs/api.md#deployed-validation-401: validation failures answer 401 (not 400) with the version's title", () => {
  it.each(VALIDATION_TITLES)(
    "%s: a create without a name, a field, or with a bad value",
    async (version, title) => {
      const { server, key } = on(version);
      const forms = [
        { type: "internal_notification" },
        { name: "Ops", type: "email" },
        { name: "Ops", type: "email", email: "not-an-email" },
        { name: "<b></b>", type: "internal_notification" }, // empty once the tags are stripped
        { name: "Ops" },
      ];
      for (const form of forms) {
        const answer = await server.call("POST", PATH, { key, form });
        expect(answer.status, JSON.stringify(form)).toBe(401);
        expect(answer.json).toEqual({ errors: [{ title, status: 401 }] });
      }
    },
  );

  it.each(VALIDATION_TITLES)("%s: an update with an empty name", async (version, title) => {
    const { server, key } = on(version);
    const id = await createEmail(version);
    const answer = await server.call("POST", `${PATH}/${id}`, { key, form: { name: "  " } });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ errors: [{ title, status: 401 }] });
  });

  it.each(VALIDATION_TITLES)(
    "%s: a body that is not a form reads as an empty one",
    async (version, title) => {
      const { server, key } = on(version);
      const answer = await server.call("POST", PATH, {
        key,
        body: JSON.stringify({ name: "Ops", type: "internal_notification" }),
        headers: { "content-type": "application/json" },
      });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ errors: [{ title, status: 401 }] });
    },
  );
});

const PLAN_LIMIT = {
  errors: [{ title: "Your have exceeded the limits of your current plan.", status: 401 }],
};

describe("docs/api.md#deployed-plan-limit-401: an unknown or disabled type on create, and a plan limit, answer 401 'Your have exceeded...'", () => {
  it.each(VERSIONS)("%s: an unknown type", async (version) => {
    const { server, key } = on(version);
    const answer = await server.call("POST", PATH, {
      key,
      form: { name: "Push", type: "push_subscriber_id" },
    });
    expect([answer.status, answer.json]).toEqual([401, PLAN_LIMIT]);
  });

  it.each(VERSIONS)("%s: a type the site switched off (--disable-type slack)", async (version) => {
    const { server, key } = on(version);
    const answer = await server.call("POST", PATH, {
      key,
      form: { name: "Slack", type: "slack", slack: "https://hooks.slack.com/services/T/B/X" },
    });
    expect([answer.status, answer.json]).toEqual([401, PLAN_LIMIT]);
  });

  it.each(VERSIONS)("%s: the plan's handler limit (--plan-limit 2)", async (version) => {
    const server = await startServer({ emulate: version, planLimit: 2 });
    try {
      const key = await server.key();
      const form = { name: "n", type: "internal_notification" };
      expect((await server.call("POST", PATH, { key, form })).status).toBe(201);
      expect((await server.call("POST", PATH, { key, form })).status).toBe(201);
      const third = await server.call("POST", PATH, { key, form });
      expect([third.status, third.json]).toEqual([401, PLAN_LIMIT]);
      // The limit is per user: another user still has room.
      expect((await server.call("POST", PATH, { key: await server.key("bob"), form })).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});

describe('docs/api.md#deployed-bearer-status-string: a missing or malformed Bearer header answers "status": "401" as a string', () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server } = on(version);
    const missingBearer = {
      errors: [{ title: "The request is missing the Bearer Authentication header.", status: "401" }],
    };
    const missing = await server.call("GET", PATH);
    expect([missing.status, missing.json]).toEqual([401, missingBearer]);
    const malformed = await server.call("GET", PATH, { headers: { authorization: "Basic YWxpY2U6eA==" } });
    expect([malformed.status, malformed.json]).toEqual([401, missingBearer]);
    // Elsewhere a number: an unknown key.
    const unknown = await server.call("GET", PATH, { key: "nhk_0000000000000000_x" });
    expect(unknown.json).toEqual({ errors: [{ title: "You do not have access to the API.", status: 401 }] });
  });
});

const NOT_FOUND = { errors: [{ title: "The resource you are looking for does not exist.", status: 404 }] };

describe("docs/api.md#deployed-404-not-405: unknown methods (PUT, PATCH), non-numeric ids and DELETE without an id answer 404, not 405", () => {
  it.each(VERSIONS)("%s", async (version) => {
    const { server, key } = on(version);
    const id = await createEmail(version);
    const requests: Array<[string, string]> = [
      ["PUT", `${PATH}/${id}`],
      ["PATCH", `${PATH}/${id}`],
      ["PUT", PATH],
      ["GET", `${PATH}/abc`],
      ["POST", `${PATH}/abc`],
      ["DELETE", `${PATH}/abc`],
      ["DELETE", PATH],
      ["DELETE", `${PATH}/`],
    ];
    for (const [method, path] of requests) {
      const form = method === "GET" ? {} : { form: { name: "x" } };
      const answer = await server.call(method, path, { key, ...form });
      expect([method, path, answer.status, answer.json]).toEqual([method, path, 404, NOT_FOUND]);
      expect(answer.headers.get("allow")).toBeNull();
    }
  });
});

describe("docs/api.md#deployed-feature-off: with the feature switched off, an HTML 404 page (text/html), before authentication", () => {
  it.each([...VERSIONS, undefined])("emulate %s", async (version) => {
    const server = await startServer({
      featureOff: true,
      rateLimit: 1,
      ...(version ? { emulate: version } : {}),
    });
    try {
      const key = await server.key();
      const requests: Array<[string, string, string | undefined]> = [
        ["GET", PATH, undefined],
        ["GET", `${PATH}/`, key],
        ["GET", `${PATH}/1`, key],
        ["POST", PATH, "not-a-key"],
        ["DELETE", `${PATH}/1`, key],
        ["PUT", `${PATH}/1`, key],
        ["GET", `${PATH}/1/2`, key],
        ["GET", `${PATH}/%zz`, key],
        ["GET", `${PATH}?page=2`, key],
      ];
      for (const [method, path, as] of requests) {
        const answer = await server.call(method, path, as === undefined ? {} : { key: as });
        expect([method, path, answer.status]).toEqual([method, path, 404]);
        expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(answer.text).toMatch(/^<!DOCTYPE html>/);
        // Before authentication: no key was checked, no request counted.
        expect(answer.headers.get("x-ratelimit-limit")).toBeNull();
      }
      // Other paths are not the feature's: the JSON 404.
      const other = await server.call("GET", "/api/other", { key });
      expect([other.status, other.json]).toEqual([404, NOT_FOUND]);
    } finally {
      await server.close();
    }
  });
});
