/**
 * The one function that maps an HTTP answer to its error class, with what deployed instances mean
 * by their statuses (docs/api.md#deployed).
 */
import {
  APIError,
  AuthenticationError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  PlanLimitError,
  RateLimitError,
  type RequestInfo,
  ServiceNotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
  describeEntries,
  parseErrorEntries,
} from "./errors";
import { withoutCredentials } from "./redaction";
import type { ResponseHeaders } from "./response-headers";

const VALIDATION_TITLE = /you must fill all the (required )?fields/i;
const PLAN_LIMIT_TITLE = /exceeded the limits of your current plan/i;

/** The class of each status that means one thing whoever answers it. */
const CLASS_OF_STATUS: Partial<Record<number, typeof APIError>> = {
  400: ValidationError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError,
};

function isJSONDocument(body: unknown): boolean {
  return typeof body === "object" && body !== null;
}

function contentTypeOf(headers: ResponseHeaders): string {
  return (headers["content-type"] ?? "").split(";")[0]?.trim() || "no content type";
}

/**
 * Maps an answer to its error class. `body` is the parsed JSON document, or the text of a non-JSON
 * answer (`undefined` when empty). `headers` have lower-case names. `collection` says the request
 * went to the collection path (list, create), where a 404 can only mean a wrong URL.
 */
export function makeAPIError(
  status: number,
  headers: ResponseHeaders,
  body: unknown,
  method: string,
  path: string,
  options: { collection?: boolean } = {},
): APIError {
  const request = { method, path };
  const titles = parseErrorEntries(body).map((e) => e.title);

  // The collection path (list, create) always exists where the API is: a 404 there, even a JSON one
  // (a base URL with a wrong path prefix on a server that answers JSON 404s), means the API is not here.
  if (options.collection && status === 404) {
    return new ServiceNotFoundError(
      status,
      headers,
      body,
      request,
      `There is no Notification Handlers API at this URL: ${method} ${path} answered 404, and that path ` +
        `always exists where the API is. Check the base URL (and its path prefix), and that the site has ` +
        `notification handlers switched on.`,
    );
  }

  // A deployed site with the feature off answers an HTML 404 page (docs/api.md#deployed-feature-off); a
  // wrong base URL answers a web page, a redirect or an empty 404. None of these is a handler that
  // does not exist.
  if (!isJSONDocument(body) && (status < 400 || status === 404 || status === 405)) {
    const what =
      status >= 300 && status < 400 && headers.location
        ? `a redirect to ${withoutCredentials(headers.location)}`
        : `${status} with ${body === undefined || body === "" ? "an empty body" : contentTypeOf(headers)}`;
    return new ServiceNotFoundError(
      status,
      headers,
      body,
      request,
      `There is no Notification Handlers API at this URL: ${method} ${path} answered ${what}, not the ` +
        `API's JSON. Check the base URL, and that the site has notification handlers switched on.`,
    );
  }

  // Deployed instances answer 401 for invalid input and for plan limits: neither is a bad key
  // (docs/api.md#deployed-validation-401, docs/api.md#deployed-plan-limit-401).
  if (status === 401) {
    if (titles.some((t) => VALIDATION_TITLE.test(t))) {
      return new ValidationError(
        status,
        headers,
        body,
        request,
        withHint(status, body, request, VALIDATION_HINT),
      );
    }
    if (titles.some((t) => PLAN_LIMIT_TITLE.test(t))) {
      return new PlanLimitError(status, headers, body, request, withHint(status, body, request, PLAN_HINT));
    }
    return new AuthenticationError(status, headers, body, request);
  }
  const ErrorClass = CLASS_OF_STATUS[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new ErrorClass(status, headers, body, request);
}

const VALIDATION_HINT = "(this server reports invalid input as 401; the API key itself was accepted)";
const PLAN_HINT =
  "(this server also answers so when the handler type is unknown or switched off on this site)";

function withHint(status: number, body: unknown, request: RequestInfo, hint: string): string {
  return `${request.method} ${request.path}: ${status} ${describeEntries(parseErrorEntries(body), status)} ${hint}`;
}
