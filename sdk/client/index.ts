/**
 * The typed client of the Notification Handlers API, as a release promises it
 * (`pulumi-notification-handlers/sdk`, and the package root): the client, its options, its results,
 * its errors, and the handler-type catalog its parameter types derive from. The helpers behind them
 * (error parsing, header rules, value cleaning, the settings table, the catalog's rule table) stay
 * inside: the CLI and the provider import those modules directly. api/sdk.api.md records this list.
 */

export { NotificationHandlersClient } from "./client";
export type { ClientOptions, Logger } from "./client-options";
export type { RequestOptions } from "./core/api-request";
export type { ClientStats } from "./core/transport";
export type { PacerState } from "./core/rate-limit";

export { NotificationHandlers } from "./domain/resources/notification-handlers";
export { NotificationHandlerRecord } from "./domain/resources/handler-parsing";
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
} from "./domain/resources/handler-params";
export { Page, PagePromise, type PageLinks, type PageMeta } from "./core/pagination";
export { type ListDialect, type WholeAccount, readWholeAccount } from "./domain/whole-account";

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
} from "./core/errors";
export type { ResponseHeaders } from "./core/response-headers";

// The catalog's table and names: what the parameter types are built from, and what a program may
// list or show (docs/provider.md#handler-types).
export {
  type FieldRule,
  type FieldSpec,
  HANDLER_TYPE_NAMES,
  HANDLER_TYPES,
  type HandlerType,
} from "./domain/catalog";

export { NotificationHandlersClient as default } from "./client";
