/**
 * The reference Notification Handlers service, as the `notification-handlers-server` package exports it:
 * `buildApp` and its options, the stores, and what tests and tools build on.
 */
export { DEFAULT_RATE_LIMIT, buildApp, type BuildAppOptions, type LoggerOption } from "./app";
export type { Clock } from "./clock";
export { EMULATED_VERSIONS, type EmulatedVersion, isEmulatedVersion } from "./emulation";
export { OPENAPI_PATH, openApiDocument } from "./openapi";
export { openRepository } from "./open-repository";
export type { Presenter } from "./presenter";
export { DEFAULT_REQUEST_TIMEOUT } from "./protocol";
export type { HandlerChange, HandlerRecord, Repository } from "./repository";
export { openSqliteRepository } from "./repository-sqlite";
