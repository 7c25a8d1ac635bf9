/** The typed client of the Notification Handlers API: everything public. */

export * from "./catalog";
export * from "./cleaning";
export * from "./errors";
export {
  API_KEY_ENV,
  BASE_URL_ENV,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  NotificationHandlersClient,
  type ClientOptions,
  type ClientStats,
  type Logger,
  type RequestOptions,
} from "./client";
export { Page, PagePromise, type PageLinks, type PageMeta } from "./pagination";
export type { PacerState } from "./rate-limit";
export {
  NotificationHandler,
  NotificationHandlers,
  formatDatetime,
  typeSettings,
  type DatetimeParam,
  type NotificationHandlerCreateParams,
  type NotificationHandlerCreateParamsOf,
  type NotificationHandlerCreateResponse,
  type NotificationHandlerListParams,
  type NotificationHandlerPartialUpdateParams,
  type NotificationHandlerUpdateParams,
  type NotificationHandlerUpdateParamsOf,
  type NotificationHandlerUpdateResponse,
  type NotificationHandlersPage,
} from "./resources/notification-handlers";

export { NotificationHandlersClient as default } from "./client";
