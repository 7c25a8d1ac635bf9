/**
 * The service's errors and the one place that turns any error into an answer.
 *
 * Every error body is `{"errors":[{title, status, detail?, source?: {parameter}}]}`. 4xx titles are
 * fixed strings a client can match on; 5xx answers stay generic and their cause goes to the log only.
 */
import { STATUS_CODES } from "node:http";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** The largest accepted request body, in bytes. */
export const BODY_LIMIT = 64 * 1024; // 64 KiB

/** The two content types create and update accept. */
export const FORM_CONTENT_TYPES = ["multipart/form-data", "application/x-www-form-urlencoded"] as const;

/** The fixed titles of the service's errors. */
export const TITLES = {
  missingBearer: "The request is missing the Bearer Authentication header.",
  noAccess: "You do not have access to the API.",
  notFound: "The resource you are looking for does not exist.",
  methodNotAllowed: "The method is not allowed on this resource.",
  invalidField: "The request has an invalid form field.",
  invalidQuery: "The request has an invalid query parameter.",
  malformedForm: "The request body is not a valid form.",
  payloadTooLarge: "The request body is larger than 64 KiB.",
  unsupportedMediaType: `The content type must be ${FORM_CONTENT_TYPES.join(" or ")}.`,
  rateLimited: "You reached the limit of requests in one minute, please wait.",
  internal: "The server encountered an internal error.",
} as const;

/** One problem of an error answer; `parameter` names the form field or query parameter at fault. */
export interface Problem {
  readonly title: string;
  readonly detail?: string;
  readonly parameter?: string;
}

/** The JSON body of every error answer. */
interface ErrorBody {
  errors: Array<{ title: string; status: number; detail?: string; source?: { parameter: string } }>;
}

/** An error the service answers on purpose: a status, one or more problems, and extra headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problems: readonly Problem[],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(problems.map((p) => p.detail ?? p.title).join("; "));
    this.name = "ApiError";
  }

  /** A 400 for invalid form fields or query parameters. */
  static badRequest(problems: readonly Problem[]): ApiError {
    return new ApiError(400, problems);
  }

  /** A 401 for a missing or malformed Authorization header. */
  static missingBearer(): ApiError {
    return new ApiError(401, [{ title: TITLES.missingBearer }]);
  }

  /** A 401 for a key that is unknown or revoked. */
  static noAccess(): ApiError {
    return new ApiError(401, [{ title: TITLES.noAccess }]);
  }

  /** A 404: unknown path, unknown id, non-numeric id or another user's handler. */
  static notFound(): ApiError {
    return new ApiError(404, [{ title: TITLES.notFound }]);
  }

  /** A 405 naming the methods the path allows. */
  static methodNotAllowed(method: string, allow: readonly string[]): ApiError {
    const detail = `${method} is not allowed here; allowed: ${allow.join(", ")}.`;
    return new ApiError(405, [{ title: TITLES.methodNotAllowed, detail }], { allow: allow.join(", ") });
  }

  /** A 413 for a body over `BODY_LIMIT`. */
  static payloadTooLarge(): ApiError {
    return new ApiError(413, [
      { title: TITLES.payloadTooLarge, detail: `The limit is ${BODY_LIMIT} bytes.` },
    ]);
  }

  /** A 415 naming the two accepted content types. */
  static unsupportedMediaType(received: string | undefined): ApiError {
    const detail = received ? `Received ${received}.` : "The request has no Content-Type header.";
    return new ApiError(415, [{ title: TITLES.unsupportedMediaType, detail }]);
  }
}

/** Renders an error as its JSON body. */
export function errorBody(error: ApiError): ErrorBody {
  return {
    errors: error.problems.map((p) => ({
      title: p.title,
      status: error.status,
      ...(p.detail === undefined ? {} : { detail: p.detail }),
      ...(p.parameter === undefined ? {} : { source: { parameter: p.parameter } }),
    })),
  };
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && typeof (error as Partial<FastifyError>).code === "string";
}

/**
 * Maps any thrown value to the error the client sees. Fastify's own 4xx errors (body parsing, bad
 * Content-Length) keep their status; everything unexpected becomes a generic 500.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isFastifyError(error)) {
    switch (error.code) {
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return ApiError.payloadTooLarge();
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return ApiError.unsupportedMediaType(undefined);
    }
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return new ApiError(status, [
        { title: `${STATUS_CODES[status] ?? "Bad request"}.`, detail: error.message },
      ]);
    }
  }
  return new ApiError(500, [{ title: TITLES.internal }]);
}

/**
 * How the error handler renders an error; swapped when another response shape is emulated. Headers,
 * when given, replace the error's own (an emulated 404 drops a 405's `Allow`).
 */
export type ErrorRenderer = (error: ApiError) => {
  status: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
};

/** The reference rendering: the error's status and the JSON error body. */
export const renderError: ErrorRenderer = (error) => ({ status: error.status, body: errorBody(error) });

/** Sends `error` as the answer to the request. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  raw: unknown,
  render: ErrorRenderer,
): FastifyReply {
  const error = toApiError(raw);
  if (error.status >= 500) {
    // The cause stays in the log: a 5xx body must not leak internals.
    request.log.error({ err: raw }, "request failed");
  }
  const { status, body, headers = error.headers } = render(error);
  return reply.code(status).headers(headers).type("application/json; charset=utf-8").send(body);
}

/** Installs the one error handler and the JSON 404 for unknown paths. */
export function installErrorHandling(app: FastifyInstance, render: ErrorRenderer = renderError): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error, render));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, ApiError.notFound(), render));
}
