/** The typed client of the Notification Handlers API: everything public. */

export * from "./catalog";
export * from "./cleaning";
export * from "./errors";
export * from "./error-mapping";
export * from "./response-headers";
export { withoutCredentials } from "./redaction";
export {
  API_KEY_ENV,
  BASE_URL_ENV,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type ClientOptions,
  type Logger,
} from "./client-options";
export type { RequestOptions } from "./api-request";
export type { ClientStats } from "./transport";
export { NotificationHandlersClient } from "./client";
export { Page, PagePromise, type PageLinks, type PageMeta } from "./pagination";
export { type ListDialect, type WholeAccount, readWholeAccount } from "./whole-account";
export type { PacerState } from "./rate-limit";
export { NotificationHandlerRecord, typeSettings } from "./resources/handler-parsing";
export { formatDatetime } from "./resources/handler-encoding";
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
export { NotificationHandlers } from "./resources/notification-handlers";

export { NotificationHandlersClient as default } from "./client";
