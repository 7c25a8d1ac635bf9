/**
 * The resource's type token as the engine records it (in the state, URNs and `pulumi preview --json`):
 * a dynamic resource's `pulumi-nodejs:dynamic/<module>:<type>`. A leaf, so that what reads previews
 * (`notification-handlers summary`) names the resource without loading the resource and Pulumi.
 */
export const RESOURCE_TYPE = "pulumi-nodejs:dynamic/notification-handlers:NotificationHandler";
