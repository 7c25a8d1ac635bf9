/** pulumi-notification-handlers: the Pulumi provider, the API client and the catalog. */
export * from "./sdk";
export * from "./provider";
