/**
 * pulumi-notification-handlers: the Pulumi resource `NotificationHandler`, handler sets as data
 * (`HandlerSet`), the API client and the handler-type catalog. The client's response schema of the same name is in
 * `pulumi-notification-handlers/sdk`.
 */
export * from "./sdk/client";
export * from "./provider";
// Both export a `NotificationHandler`; at the root it is the Pulumi resource.
export { NotificationHandler } from "./provider";
