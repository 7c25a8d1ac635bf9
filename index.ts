/** pulumi-notification-handlers: the package root. */
export * from "./sdk";
