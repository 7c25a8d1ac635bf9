/** Hostile and broken input: every one answers a documented 4xx, never a 500 or a crash. */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type Repository } from "../../server";
import {
  type Answer,
  type TestServer,
  errorsOf,
  openTestRepository,
  parametersOf,
  startServer,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const LIMIT = 64 * 1024;

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  key = await server.key();
});
afterAll(() => server.close());

function multipart(boundary: string, parts: Array<[string, string, string?]>): string {
  const body = parts.map(
    ([name, value, filename]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? "" : `; filename="${filename}"`}\r\n\r\n${value}\r\n`,
  );
  return `${body.join("")}--${boundary}--\r\n`;
}

function postRaw(body: string | Uint8Array, contentType: string, path = PATH): Promise<Answer> {
  return server.call("POST", path, { key, body, headers: { "content-type": contentType } });
}

describe("body size", () => {
  it("answers 413 to an oversized urlencoded body", async () => {
    const answer = await server.call("POST", PATH, { key, urlencoded: `name=${"x".repeat(LIMIT)}` });
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({
      errors: [
        {
          title: "The request body is larger than 64 KiB.",
          status: 413,
          detail: "The limit is 65536 bytes.",
        },
      ],
    });
  });

  it("answers 413 to an oversized multipart body", async () => {
    const form = new FormData();
    form.append("name", "x".repeat(200_000));
    form.append("type", "internal_notification");
    const answer = await server.call("POST", PATH, { key, form });
    expect(answer.status).toBe(413);
  });

  it("answers 413 to an oversized update", async () => {
    const id = (
      (await server.call("POST", PATH, { key, form: { name: "n", type: "internal_notification" } })).json as {
        data: { id: number };
      }
    ).data.id;
    const answer = await server.call("POST", `${PATH}/${id}`, {
      key,
      urlencoded: `name=${"x".repeat(LIMIT)}`,
    });
    expect(answer.status).toBe(413);
  });

  it("answers 413 to an oversized chunked body, which announces no length", async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `${server.url}${PATH}`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/x-www-form-urlencoded",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 20; i++) req.write("x".repeat(10_000));
      req.end();
    });
    expect(status).toBe(413);
  });

  it("accepts a body of exactly 64 KiB", async () => {
    const prefix = "type=internal_notification&name=ok&is_enabled=1&";
    const body = `${prefix}name2=${"x".repeat(LIMIT - prefix.length - "name2=".length)}`;
    expect(body.length).toBe(LIMIT);
    const answer = await postRaw(body, "application/x-www-form-urlencoded");
    expect(answer.status).toBe(400); // read whole: the unknown field is what is wrong
    expect(parametersOf(answer)).toEqual(["name2"]);
  });
});

describe("malformed and unexpected forms", () => {
  it.each([
    ["garbage", "multipart/form-data; boundary=b", "this is not multipart"],
    [
      "a truncated part",
      "multipart/form-data; boundary=b",
      '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx',
    ],
    ["no boundary", "multipart/form-data", multipart("b", [["name", "x"]])],
    ["the wrong boundary", "multipart/form-data; boundary=other", multipart("b", [["name", "x"]])],
  ])("answers 400 to multipart with %s", async (_case, contentType, body) => {
    const answer = await postRaw(body, contentType);
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)[0]?.title).toBe("The request body is not a valid form.");
  });

  it("refuses a file upload in place of a field", async () => {
    const body = multipart("b", [
      ["name", "n"],
      ["type", "email"],
      ["email", "ops@example.com", "email.txt"],
    ]);
    const answer = await postRaw(body, "multipart/form-data; boundary=b");
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)[0]).toMatchObject({
      detail: "email must be a plain form field, not a file.",
      source: { parameter: "email" },
    });
  });

  it("refuses a repeated field once, however often it repeats", async () => {
    const answer = await postRaw(
      `type=internal_notification&${Array.from({ length: 2000 }, () => "name=n").join("&")}`,
      "application/x-www-form-urlencoded",
    );
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)).toEqual([
      {
        title: "The request has an invalid form field.",
        status: 400,
        detail: "name must be sent only once.",
        source: { parameter: "name" },
      },
    ]);
  });

  it("treats prototype names as unknown fields and parameters", async () => {
    const form = await postRaw(
      "__proto__=1&constructor=2&name=n&type=internal_notification",
      "application/x-www-form-urlencoded",
    );
    expect(form.status).toBe(400);
    expect(parametersOf(form)).toEqual(["__proto__", "constructor"]);
    const query = await server.call("GET", `${PATH}?__proto__=1&toString=x`, { key });
    expect(query.status).toBe(400);
    expect(parametersOf(query)).toEqual(["__proto__", "toString"]);
  });

  it("reads broken percent-encoding as text", async () => {
    const answer = await postRaw(
      "name=100%zz&type=internal_notification",
      "application/x-www-form-urlencoded",
    );
    expect(answer.status).toBe(201);
    const listed = await server.call("GET", `${PATH}?search=${encodeURIComponent("%zz")}`, { key });
    expect((listed.json as { data: Array<{ name: string }> }).data.map((h) => h.name)).toEqual(["100%zz"]);
  });

  it("stores control characters, emoji and right-to-left text exactly", async () => {
    const name = "a\u0000b\u0007 😀 שלום <script>alert(1)</script>";
    const created = await server.call("POST", PATH, { key, form: { name, type: "internal_notification" } });
    expect(created.status).toBe(201);
    const { id } = (created.json as { data: { id: number } }).data;
    const read = await server.call("GET", `${PATH}/${id}`, { key });
    expect((read.json as { data: { name: string } }).data.name).toBe(name);
  });

  it.each(["", "text", "multipart/", "form; urlencoded"])(
    "answers a 4xx to the Content-Type %j",
    async (contentType) => {
      const answer = await postRaw("name=n&type=internal_notification", contentType);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(errorsOf(answer)).toHaveLength(1);
    },
  );

  it("answers 404 to paths that do not decode", async () => {
    const answer = await server.call("GET", `${PATH}/%zz`, { key });
    expect(answer.status).toBe(404);
    expect(errorsOf(answer)[0]?.title).toBe("The resource you are looking for does not exist.");
  });

  it("keeps serving after all of the above", async () => {
    expect((await server.call("GET", PATH, { key })).status).toBe(200);
  });
});

describe("server faults and logs", () => {
  let lines: string[];
  let repository: Repository;
  let app: ReturnType<typeof buildApp>;
  let secretKey: string;

  beforeAll(async () => {
    lines = [];
    repository = await openTestRepository();
    secretKey = await repository.createApiKey(
      await repository.ensureUser("alice", "2024-01-01 00:00:00"),
      "2024-01-01 00:00:00",
    );
    // Listing fails inside the store, as a full disk or a corrupt file would.
    const broken = new Proxy(repository, {
      get(target, property, receiver) {
        if (property === "listHandlers") {
          return () => {
            throw new Error("disk I/O error at /var/lib/secret-path");
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    app = buildApp({
      repository: broken,
      logger: { level: "info", stream: { write: (line: string) => void lines.push(line) } },
    });
  });
  afterAll(async () => {
    await app.close();
    await repository.close();
  });

  it("answers a bug with a generic 500 and logs the cause", async () => {
    const answer = await app.inject({
      method: "GET",
      url: PATH,
      headers: { authorization: `Bearer ${secretKey}` },
    });
    expect(answer.statusCode).toBe(500);
    expect(answer.json()).toEqual({
      errors: [{ title: "The server encountered an internal error.", status: 500 }],
    });
    expect(answer.body).not.toContain("secret-path");
    expect(lines.join("")).toContain("disk I/O error at /var/lib/secret-path");
  });

  it("never writes the API key to the log", async () => {
    await app.inject({ method: "GET", url: `${PATH}/1`, headers: { authorization: `Bearer ${secretKey}` } });
    await app.inject({ method: "GET", url: PATH, headers: { authorization: `Bearer ${secretKey}x` } });
    // Even a line that logs the headers on purpose has the key replaced.
    app.log.info({ headers: { authorization: `Bearer ${secretKey}` } }, "headers probe");
    const log = lines.join("");
    expect(log).toContain("headers probe");
    expect(log).toContain("[redacted]");
    expect(log).not.toContain(secretKey);
  });
});
