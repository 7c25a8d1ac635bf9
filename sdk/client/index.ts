/**
 * The typed client of the Notification Handlers API, as a release promises it
 * (`pulumi-notification-handlers/sdk`, and the package root): the client, its options, its results,
 * its errors, and the handler-type catalog its parameter types derive from. The helpers behind them
 * (error parsing, header rules, value cleaning, the settings table, the catalog's rule table) stay
 * inside: the CLI and the provider import those modules directly. api/sdk.api.md records this list.
 */

export { NotificationHandlersClient } from "./client";
export type { ClientOptions, Logger } from "./client-options";
export type { RequestOptions } from "./api-request";
export type { ClientStats } from "./transport";
export type { PacerState } from "./rate-limit";

export { NotificationHandlers } from "./resources/notification-handlers";
export { NotificationHandlerRecord } from "./resources/handler-parsing";
export type {
  DatetimeParam,
  NotificationHandlerCreateParams,
  NotificationHandlerCreateParamsOf,
  NotificationHandlerCreateResponse,
  NotificationHandlerListParams,
  NotificationHandlerPartialUpdateParams,
  NotificationHandlerUpdateParams,
  NotificationHandlerUpdateParamsOf,
  NotificationHandlerUpdateResponse,
  NotificationHandlersPage,
} from "./resources/handler-params";
export { Page, PagePromise, type PageLinks, type PageMeta } from "./pagination";
export { type ListDialect, type WholeAccount, readWholeAccount } from "./whole-account";

export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  type APIErrorEntry,
  AuthenticationError,
  BadRequestError,
  ClientClosedError,
  CreateOutcomeUnknownError,
  type ErrorCode,
  InternalServerError,
  MethodNotAllowedError,
  MissingConfigurationError,
  NotFoundError,
  NotificationHandlersError,
  PayloadTooLargeError,
  PlanLimitError,
  RateLimitError,
  type RequestInfo,
  ServiceNotFoundError,
  UnexpectedResponseError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "./errors";
export type { ResponseHeaders } from "./response-headers";

// The catalog's table and names: what the parameter types are built from, and what a program may
// list or show (docs/provider.md#handler-types).
export {
  type FieldRule,
  type FieldSpec,
  HANDLER_TYPE_NAMES,
  HANDLER_TYPES,
  type HandlerType,
} from "./catalog";

export { NotificationHandlersClient as default } from "./client";
