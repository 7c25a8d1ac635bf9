/**
 * The client's error chain (`error-mapping.ts` maps an HTTP answer to its class).
 *
 * Every error has a stable `code`. Messages carry the server's titles and details and the request
 * method and path, never credentials: the client redacts its API key from anything a server echoes
 * before an error is built, and no error stores request headers.
 */

import { isRecord } from "./json";
import { type ResponseHeaders, retryAfterSeconds } from "./response-headers";

/** Stable machine-readable error codes. */
export type ErrorCode =
  | "notification_handlers_error"
  | "missing_configuration"
  | "client_closed"
  | "unexpected_response"
  | "api_error"
  | "bad_request"
  | "validation_error"
  | "authentication_error"
  | "plan_limit_exceeded"
  | "not_found"
  | "method_not_allowed"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "internal_server_error"
  | "service_not_found"
  | "connection_error"
  | "connection_timeout"
  | "create_outcome_unknown";

/**
 * One entry of an error body, normalized (`status` may arrive as the string "401":
 * docs/api.md#deployed-bearer-status-string).
 */
export interface APIErrorEntry {
  title: string;
  status?: number;
  detail?: string;
  source?: { parameter?: string };
}

/** The base of every error this package throws. */
export class NotificationHandlersError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode = "notification_handlers_error";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The client is missing its base URL or API key, or one is malformed. */
export class MissingConfigurationError extends NotificationHandlersError {
  override readonly code = "missing_configuration";
}

/** The client was closed (`close()`) before this request. */
export class ClientClosedError extends NotificationHandlersError {
  override readonly code = "client_closed";
}

/** Where an error happened: the request method and path (path includes any base-URL prefix and the query). */
export interface RequestInfo {
  method: string;
  path: string;
}

/** The server answered, but with a body this client cannot read as the API's answer. */
export class UnexpectedResponseError extends NotificationHandlersError {
  override readonly code: ErrorCode = "unexpected_response";
  readonly status: number;
  readonly method: string;
  readonly path: string;
  /** The body as received (redacted), for diagnosis. */
  readonly body: unknown;

  constructor(message: string, status: number, request: RequestInfo, body: unknown) {
    super(`${request.method} ${request.path}: ${message}`);
    this.status = status;
    this.method = request.method;
    this.path = request.path;
    this.body = body;
  }
}

/** The server answered with an error status. */
export class APIError extends NotificationHandlersError {
  override readonly code: ErrorCode = "api_error";
  /** HTTP status of the answer (not the `status` inside the body). */
  readonly status: number;
  /** Response headers, lower-case names. */
  readonly headers: ResponseHeaders;
  /** The parsed `errors` entries of the body (empty when the body had none). */
  readonly errors: APIErrorEntry[];
  /** The body as received (redacted): parsed JSON, or text for a non-JSON answer. */
  readonly body: unknown;
  /** HTTP method of the request. */
  readonly method: string;
  /** Path of the request, including any base-URL prefix and the query. */
  readonly path: string;

  constructor(
    status: number,
    headers: ResponseHeaders,
    body: unknown,
    request: RequestInfo,
    message?: string,
  ) {
    const errors = parseErrorEntries(body);
    super(message ?? `${request.method} ${request.path}: ${status} ${describeEntries(errors, status)}`);
    this.status = status;
    this.headers = headers;
    this.errors = errors;
    this.body = body;
    this.method = request.method;
    this.path = request.path;
  }
}

/** 400: the request was malformed. */
export class BadRequestError extends APIError {
  override readonly code: ErrorCode = "bad_request";
}

/**
 * Invalid input: a 400, or the 401 `You must fill all the required fields.` (older: `... all the
 * fields.`) by which deployed instances report validation failures
 * (docs/api.md#deployed-validation-401). `status` stays the HTTP status the server sent.
 */
export class ValidationError extends BadRequestError {
  override readonly code = "validation_error";
}

/** 401: the API key is missing, malformed, unknown or revoked. */
export class AuthenticationError extends APIError {
  override readonly code = "authentication_error";
}

/**
 * 401 `Your have exceeded the limits of your current plan.` (sic): deployed instances answer this for
 * a plan limit and also for a handler type that is unknown or switched off on that site
 * (docs/api.md#deployed-plan-limit-401).
 */
export class PlanLimitError extends APIError {
  override readonly code = "plan_limit_exceeded";
}

/** 404: the handler does not exist (or belongs to another user). */
export class NotFoundError extends APIError {
  override readonly code = "not_found";
}

/** 405: the method is not allowed on this path. */
export class MethodNotAllowedError extends APIError {
  override readonly code = "method_not_allowed";
}

/** 413: the request body is too large. */
export class PayloadTooLargeError extends APIError {
  override readonly code = "payload_too_large";
}

/** 415: the request body's content type is not accepted. */
export class UnsupportedMediaTypeError extends APIError {
  override readonly code = "unsupported_media_type";
}

/** 429: the rate limit was reached. */
export class RateLimitError extends APIError {
  override readonly code = "rate_limited";
  /** Seconds to wait before retrying, from `Retry-After` or `X-RateLimit-Reset`, when the server said. */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    headers: ResponseHeaders,
    body: unknown,
    request: RequestInfo,
    message?: string,
  ) {
    super(status, headers, body, request, message);
    this.retryAfter = retryAfterSeconds(headers);
  }
}

/** 5xx: the server failed. */
export class InternalServerError extends APIError {
  override readonly code = "internal_server_error";
}

/**
 * The URL answered, but not as this API: an HTML 404 page (deployed sites with the feature switched
 * off answer so, before authentication: docs/api.md#deployed-feature-off), a redirect, or any other
 * non-JSON answer. Not a `NotFoundError`, so "handler gone" and "wrong URL" never look alike.
 */
export class ServiceNotFoundError extends APIError {
  override readonly code = "service_not_found";
}

/** The request failed on the connection: refused, reset, DNS, TLS. */
export class APIConnectionError extends NotificationHandlersError {
  override readonly code: ErrorCode = "connection_error";
  readonly method: string;
  readonly path: string;

  constructor(request: RequestInfo, message?: string, options?: { cause?: unknown }) {
    super(
      message ?? `${request.method} ${request.path}: connection error${causeText(options?.cause)}`,
      options,
    );
    this.method = request.method;
    this.path = request.path;
  }
}

/** The request did not complete within the timeout. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override readonly code = "connection_timeout";

  constructor(request: RequestInfo, timeoutMs: number, options?: { cause?: unknown }) {
    super(request, `${request.method} ${request.path}: request timed out after ${timeoutMs} ms`, options);
  }
}

/**
 * A create failed on the connection after the request may have reached the server: the handler may
 * have been created. Never retried (a retry could create it twice); list by name to find out.
 */
export class CreateOutcomeUnknownError extends APIConnectionError {
  override readonly code = "create_outcome_unknown";

  constructor(request: RequestInfo, options: { cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(
      request,
      `${request.method} ${request.path}: the connection failed after the request was sent, so the handler ` +
        `may have been created; it was not retried, to avoid creating it twice. List the handlers by name ` +
        `to find out. Cause: ${reason}`,
      options,
    );
  }
}

function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return "";
  const code = (cause as { code?: unknown }).code;
  return `: ${cause.message}${typeof code === "string" && !cause.message.includes(code) ? ` (${code})` : ""}`;
}

/** Reads the `errors` entries of a body, tolerating a string `status` and missing fields. */
export function parseErrorEntries(body: unknown): APIErrorEntry[] {
  if (!isRecord(body) || !Array.isArray(body.errors)) return [];
  const entries: APIErrorEntry[] = [];
  for (const raw of body.errors) {
    if (!isRecord(raw)) continue;
    const entry: APIErrorEntry = { title: typeof raw.title === "string" ? raw.title : "" };
    const status = typeof raw.status === "string" ? Number(raw.status.trim()) : raw.status;
    if (typeof status === "number" && Number.isInteger(status)) entry.status = status;
    if (typeof raw.detail === "string") entry.detail = raw.detail;
    if (isRecord(raw.source) && typeof raw.source.parameter === "string") {
      entry.source = { parameter: raw.source.parameter };
    }
    entries.push(entry);
  }
  return entries;
}

/** The entries of an error answer as one line of a message. */
export function describeEntries(entries: readonly APIErrorEntry[], status: number): string {
  const parts = entries
    .map((e) => {
      const title = e.title.trim();
      const detail = e.detail?.trim() ?? "";
      const joiner = /[.!?:]$/.test(title) ? " " : ": ";
      const text = title && detail ? `${title}${joiner}${detail}` : title || detail;
      const param = e.source?.parameter;
      // The reference server's details start with the parameter name; say it only when they do not.
      return param && !detail.startsWith(`${param} `) ? `${text} (parameter ${param})` : text;
    })
    .filter((s) => s.length > 0);
  return parts.length > 0 ? parts.join("; ") : statusText(status);
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
  };
  return texts[status] ?? "(no error details in the answer)";
}
