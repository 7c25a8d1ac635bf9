/**
 * An answer to its error class: each status and body of the reference server, deployed instances and
 * proxies' pages to the class that says what went wrong, the connection errors' chain and codes, and
 * credentials kept out of errors. Over real sockets: integration/sdk-errors-http.
 */
import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  CreateOutcomeUnknownError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  NotificationHandlersError,
  PayloadTooLargeError,
  PlanLimitError,
  RateLimitError,
  ServiceNotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
  parseErrorEntries,
} from "../../sdk/client/core/errors";
import { makeAPIError } from "../../sdk/client/core/error-mapping";
import { retryAfterSeconds } from "../../sdk/client/core/response-headers";
import { withoutCredentials } from "../../sdk/client/core/redaction";

const json = { "content-type": "application/json" };
const body = (title: string, status: number | string, extra: Record<string, unknown> = {}) => ({
  errors: [{ title, status, ...extra }],
});

describe("makeAPIError", () => {
  it("maps 400 to ValidationError (a BadRequestError), naming the parameter", () => {
    const err = makeAPIError(
      400,
      json,
      body("Invalid value.", 400, { detail: "must be an email address", source: { parameter: "email" } }),
      "POST",
      "/api/notification-handlers",
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toBeInstanceOf(NotificationHandlersError);
    expect(err.code).toBe("validation_error");
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      "POST /api/notification-handlers: 400 Invalid value. must be an email address (parameter email)",
    );
    const named = makeAPIError(
      400,
      json,
      body("The request has an invalid form field.", 400, {
        detail: "email must be an email address.",
        source: { parameter: "email" },
      }),
      "POST",
      "/api/notification-handlers",
    );
    expect(named.message).toBe(
      "POST /api/notification-handlers: 400 The request has an invalid form field. email must be an email address.",
    );
    expect(err.errors).toEqual([
      {
        title: "Invalid value.",
        status: 400,
        detail: "must be an email address",
        source: { parameter: "email" },
      },
    ]);
  });

  it("maps a deployed 401 'You must fill all the required fields.' to ValidationError, not authentication", () => {
    for (const title of ["You must fill all the required fields.", "You must fill all the fields."]) {
      const err = makeAPIError(401, json, body(title, 401), "POST", "/api/notification-handlers");
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).not.toBeInstanceOf(AuthenticationError);
      expect(err.status).toBe(401);
      expect(err.message).toContain(title);
      expect(err.message).toContain("API key itself was accepted");
    }
  });

  it("maps 401 'Your have exceeded the limits of your current plan.' to PlanLimitError", () => {
    const err = makeAPIError(
      401,
      json,
      body("Your have exceeded the limits of your current plan.", 401),
      "POST",
      "/api/notification-handlers",
    );
    expect(err).toBeInstanceOf(PlanLimitError);
    expect(err.code).toBe("plan_limit_exceeded");
    expect(err.message).toContain("Your have exceeded the limits of your current plan.");
    expect(err.message).toContain("unknown or switched off");
  });

  it("maps other 401s to AuthenticationError, reading a string status in the body", () => {
    const err = makeAPIError(
      401,
      json,
      body("The request is missing the Bearer Authentication header.", "401"),
      "GET",
      "/api/notification-handlers/",
    );
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.code).toBe("authentication_error");
    expect(err.errors[0]?.status).toBe(401);
    expect(err.message).toBe(
      "GET /api/notification-handlers/: 401 The request is missing the Bearer Authentication header.",
    );
  });

  it.each([
    [404, NotFoundError, "not_found"],
    [405, MethodNotAllowedError, "method_not_allowed"],
    [413, PayloadTooLargeError, "payload_too_large"],
    [415, UnsupportedMediaTypeError, "unsupported_media_type"],
    [429, RateLimitError, "rate_limited"],
    [500, InternalServerError, "internal_server_error"],
    [502, InternalServerError, "internal_server_error"],
    [503, InternalServerError, "internal_server_error"],
  ] as const)("maps a JSON %i to its class", (status, cls, code) => {
    const err = makeAPIError(status, json, body("Something.", status), "GET", "/api/notification-handlers/1");
    expect(err).toBeInstanceOf(cls);
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.method).toBe("GET");
    expect(err.path).toBe("/api/notification-handlers/1");
  });

  it("maps an unlisted status to a plain APIError", () => {
    const err = makeAPIError(418, json, { errors: [] }, "GET", "/x");
    expect(err.constructor).toBe(APIError);
    expect(err.code).toBe("api_error");
    expect(err.message).toBe("GET /x: 418 (no error details in the answer)");
  });

  it("reads Retry-After and X-RateLimit-Reset on a RateLimitError", () => {
    const a = makeAPIError(429, { ...json, "retry-after": "12" }, body("Slow down.", 429), "GET", "/x");
    expect((a as RateLimitError).retryAfter).toBe(12);
    const b = makeAPIError(429, { ...json, "x-ratelimit-reset": "30" }, body("Slow down.", 429), "GET", "/x");
    expect((b as RateLimitError).retryAfter).toBe(30);
  });

  it("maps an HTML 404 to ServiceNotFoundError, not NotFoundError", () => {
    const err = makeAPIError(
      404,
      { "content-type": "text/html; charset=UTF-8" },
      "<html><body>Page not found</body></html>",
      "GET",
      "/api/notification-handlers/",
    );
    expect(err).toBeInstanceOf(ServiceNotFoundError);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect(err.code).toBe("service_not_found");
    expect(err.message).toBe(
      "There is no Notification Handlers API at this URL: GET /api/notification-handlers/ answered 404 with " +
        "text/html, not the API's JSON. Check the base URL, and that the site has notification handlers switched on.",
    );
  });

  it("maps a web page answering 200, an empty 404 and a redirect to ServiceNotFoundError", () => {
    expect(makeAPIError(200, { "content-type": "text/html" }, "<html/>", "GET", "/x")).toBeInstanceOf(
      ServiceNotFoundError,
    );
    const empty = makeAPIError(404, {}, undefined, "GET", "/x");
    expect(empty).toBeInstanceOf(ServiceNotFoundError);
    expect(empty.message).toContain("404 with an empty body");
    const moved = makeAPIError(301, { location: "https://user:pw@other.test/login" }, "", "GET", "/x");
    expect(moved).toBeInstanceOf(ServiceNotFoundError);
    expect(moved.message).toContain("a redirect to https://other.test/login");
    expect(moved.message).not.toContain("pw");
  });

  it("maps a JSON 404 on the collection path (list, create) to ServiceNotFoundError: a wrong prefix", () => {
    const notFound = body("The resource you are looking for does not exist.", 404);
    const err = makeAPIError(404, json, notFound, "GET", "/wrong/api/notification-handlers/?page=1", {
      collection: true,
    });
    expect(err).toBeInstanceOf(ServiceNotFoundError);
    expect(err.message).toContain("that path always exists where the API is");
    expect(makeAPIError(404, json, notFound, "GET", "/api/notification-handlers/3")).toBeInstanceOf(
      NotFoundError,
    );
  });

  it("keeps the status class for non-JSON errors from proxies (502 page, 413 page)", () => {
    expect(
      makeAPIError(502, { "content-type": "text/html" }, "<h1>Bad Gateway</h1>", "GET", "/x"),
    ).toBeInstanceOf(InternalServerError);
    expect(
      makeAPIError(413, { "content-type": "text/html" }, "<h1>Too large</h1>", "POST", "/x"),
    ).toBeInstanceOf(PayloadTooLargeError);
  });
});

describe("connection errors", () => {
  it("form a chain under APIConnectionError with stable codes", () => {
    const info = { method: "POST", path: "/api/notification-handlers" };
    const timeout = new APIConnectionTimeoutError(info, 5000);
    expect(timeout).toBeInstanceOf(APIConnectionError);
    expect(timeout.code).toBe("connection_timeout");
    expect(timeout.message).toBe("POST /api/notification-handlers: request timed out after 5000 ms");
    const unknown = new CreateOutcomeUnknownError(info, { cause: timeout });
    expect(unknown).toBeInstanceOf(APIConnectionError);
    expect(unknown.code).toBe("create_outcome_unknown");
    expect(unknown.message).toContain("may have been created");
    expect(unknown.message).toContain("not retried");
    expect(unknown.name).toBe("CreateOutcomeUnknownError");
    const plain = new APIConnectionError(info, undefined, {
      cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
    });
    expect(plain.code).toBe("connection_error");
    expect(plain.message).toBe(
      "POST /api/notification-handlers: connection error: connect ECONNREFUSED 127.0.0.1:1",
    );
  });
});

describe("helpers", () => {
  it("parseErrorEntries tolerates missing and odd fields", () => {
    expect(parseErrorEntries(undefined)).toEqual([]);
    expect(parseErrorEntries({ errors: "x" })).toEqual([]);
    expect(
      parseErrorEntries({ errors: [{ status: "404" }, 3, { title: "T", source: { parameter: 5 } }] }),
    ).toEqual([{ title: "", status: 404 }, { title: "T" }]);
  });

  it("retryAfterSeconds reads seconds, HTTP dates and an epoch X-RateLimit-Reset", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterSeconds({ "retry-after": "7" }, now)).toBe(7);
    expect(retryAfterSeconds({ "retry-after": "Thu, 01 Jan 2026 00:00:09 GMT" }, now)).toBe(9);
    expect(retryAfterSeconds({ "x-ratelimit-reset": String(now / 1000 + 20) }, now)).toBe(20);
    expect(retryAfterSeconds({ "retry-after": "3", "x-ratelimit-reset": "5" }, now)).toBe(5);
    expect(retryAfterSeconds({}, now)).toBeUndefined();
    expect(retryAfterSeconds({ "retry-after": "soon" }, now)).toBeUndefined();
  });

  it("withoutCredentials removes credentials", () => {
    expect(withoutCredentials("https://a:b@x.test/p")).toBe("https://x.test/p");
    expect(withoutCredentials("https://x.test/p")).toBe("https://x.test/p");
  });
});
