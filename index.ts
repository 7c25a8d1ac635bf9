/**
 * pulumi-notification-handlers: what a Pulumi program or a user of the API client imports. The
 * Pulumi side (`NotificationHandler`, `HandlerSet`, the lookups) and the client
 * (`NotificationHandlersClient`, its options, results and errors, the handler-type catalog) are also
 * their own export paths, `/provider` and `/sdk`; the root is both (`/sdk`'s default export aside).
 * api/index.api.md records it.
 */
export * from "./sdk/client";
export * from "./provider";
