/** One test per error status and class, through the client against a scripted server. */

import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APIError,
  AuthenticationError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  NotificationHandlersClient,
  PayloadTooLargeError,
  PlanLimitError,
  RateLimitError,
  ServiceNotFoundError,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "../../sdk/client";
import {
  apiError,
  json,
  startScriptedServer,
  virtualClock,
  type ScriptedServer,
} from "../support/servers/scripted-server";

/** What the scripted server answers, keyed by the id in the path. */
const answers: Record<string, (res: ServerResponse) => void> = {
  "400": (res) =>
    apiError(res, 400, "The request has an invalid query parameter.", {
      detail: "results_per_page must be one of 10, 25, 50, 100, 250, 500, 1000.",
      parameter: "results_per_page",
    }),
  "401": (res) => apiError(res, 401, "You do not have access to the API."),
  "4011": (res) =>
    apiError(res, 401, "The request is missing the Bearer Authentication header.", { bodyStatus: "401" }),
  "4012": (res) => apiError(res, 401, "You must fill all the required fields."),
  "4013": (res) => apiError(res, 401, "You must fill all the fields."),
  "4014": (res) => apiError(res, 401, "Your have exceeded the limits of your current plan."),
  "404": (res) => apiError(res, 404, "The resource you are looking for does not exist."),
  "4040": (res) => {
    res.writeHead(404, { "content-type": "text/html; charset=UTF-8" });
    res.end("<!DOCTYPE html><html><body><h1>404</h1><p>Page not found.</p></body></html>");
  },
  "405": (res) =>
    apiError(res, 405, "The method is not allowed on this resource.", {
      detail: "PUT is not allowed here; allowed: GET, POST, DELETE.",
      headers: { allow: "GET, POST, DELETE" },
    }),
  "413": (res) =>
    apiError(res, 413, "The request body is larger than 64 KiB.", { detail: "The limit is 65536 bytes." }),
  "415": (res) =>
    apiError(res, 415, "The content type must be multipart/form-data or application/x-www-form-urlencoded.", {
      detail: "Received application/json.",
    }),
  "429": (res) =>
    apiError(res, 429, "You reached the limit of requests in one minute, please wait.", {
      headers: { "x-ratelimit-limit": "60", "retry-after": "20", "x-ratelimit-reset": "20" },
    }),
  "500": (res) => apiError(res, 500, "The server encountered an internal error."),
  "502": (res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end("<html><body>Bad Gateway</body></html>");
  },
  "200": (res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<html><body>Welcome to our site</body></html>");
  },
  "2000": (res) => json(res, 200, { result: "something else" }),
  "418": (res) => apiError(res, 418, "I'm a teapot."),
};

let server: ScriptedServer;
let client: NotificationHandlersClient;

beforeAll(async () => {
  server = await startScriptedServer((call, res) => {
    const id = /\/(\d+)$/.exec(call.url)?.[1] ?? "";
    (answers[id] ?? ((r: ServerResponse) => json(r, 500, {})))(res);
  });
  const clock = virtualClock();
  client = new NotificationHandlersClient({
    baseURL: server.url,
    apiKey: "k-errors",
    maxRetries: 0,
    sleep: clock.sleep,
    now: clock.now,
  });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

async function failure(id: number): Promise<unknown> {
  return client.notificationHandlers.retrieve(id).then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err,
  );
}

describe("every status maps to its class", () => {
  it("400 -> ValidationError naming the parameter", async () => {
    const err = (await failure(400)) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.status).toBe(400);
    expect(err.errors[0]?.source?.parameter).toBe("results_per_page");
    expect(err.message).toBe(
      "GET /api/notification-handlers/400: 400 The request has an invalid query parameter. results_per_page must be one of 10, 25, 50, 100, 250, 500, 1000.",
    );
  });

  it("401 -> AuthenticationError", async () => {
    const err = (await failure(401)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.code).toBe("authentication_error");
    expect(err.message).toBe("GET /api/notification-handlers/401: 401 You do not have access to the API.");
  });

  it('401 with "status": "401" as a string (deployed, missing Bearer) -> AuthenticationError', async () => {
    const err = (await failure(4011)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.errors[0]?.status).toBe(401);
  });

  it("deployed 401 'You must fill all the required fields.' -> ValidationError", async () => {
    const err = (await failure(4012)) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.status).toBe(401);
    expect(err.message).toContain("You must fill all the required fields.");
  });

  it("older deployed 401 'You must fill all the fields.' -> ValidationError", async () => {
    expect(await failure(4013)).toBeInstanceOf(ValidationError);
  });

  it("deployed 401 'Your have exceeded the limits of your current plan.' -> PlanLimitError", async () => {
    const err = (await failure(4014)) as PlanLimitError;
    expect(err).toBeInstanceOf(PlanLimitError);
    expect(err).not.toBeInstanceOf(AuthenticationError);
  });

  it("404 -> NotFoundError", async () => {
    const err = (await failure(404)) as NotFoundError;
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe(
      "GET /api/notification-handlers/404: 404 The resource you are looking for does not exist.",
    );
  });

  it("HTML 404 (feature switched off) -> ServiceNotFoundError, not a parse error", async () => {
    const err = (await failure(4040)) as ServiceNotFoundError;
    expect(err).toBeInstanceOf(ServiceNotFoundError);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect(err.message).toMatch(
      /^There is no Notification Handlers API at this URL: GET \/api\/notification-handlers\/4040 answered 404 with text\/html/,
    );
  });

  it("405 -> MethodNotAllowedError with the Allow header", async () => {
    const err = (await failure(405)) as MethodNotAllowedError;
    expect(err).toBeInstanceOf(MethodNotAllowedError);
    expect(err.headers.allow).toBe("GET, POST, DELETE");
  });

  it("413 -> PayloadTooLargeError", async () => {
    expect(await failure(413)).toBeInstanceOf(PayloadTooLargeError);
  });

  it("415 -> UnsupportedMediaTypeError", async () => {
    const err = (await failure(415)) as UnsupportedMediaTypeError;
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(err.message).toContain("Received application/json.");
  });

  it("429 -> RateLimitError with retryAfter (when retries are off)", async () => {
    const err = (await failure(429)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfter).toBe(20);
  });

  it("500 -> InternalServerError", async () => {
    expect(await failure(500)).toBeInstanceOf(InternalServerError);
  });

  it("a proxy's HTML 502 -> InternalServerError", async () => {
    const err = (await failure(502)) as InternalServerError;
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.body).toBe("<html><body>Bad Gateway</body></html>");
  });

  it("a web page answering 200 -> ServiceNotFoundError", async () => {
    expect(await failure(200)).toBeInstanceOf(ServiceNotFoundError);
  });

  it("JSON that is not the API's answer -> UnexpectedResponseError", async () => {
    const err = (await failure(2000)) as UnexpectedResponseError;
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.code).toBe("unexpected_response");
    expect(err.message).toBe('GET /api/notification-handlers/2000: the answer has no "data" (read)');
  });

  it("an unlisted status -> APIError", async () => {
    const err = (await failure(418)) as APIError;
    expect(err.constructor).toBe(APIError);
    expect(err.status).toBe(418);
  });
});
