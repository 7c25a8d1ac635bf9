/**
 * pulumi-notification-handlers: the Pulumi resource `NotificationHandler`, handler sets as data
 * (`HandlerSet`), the API client (`NotificationHandlersClient`, its handler is `NotificationHandlerRecord`)
 * and the handler-type catalog. The client alone is also `pulumi-notification-handlers/sdk`.
 */
export * from "./sdk/client";
export * from "./provider";
