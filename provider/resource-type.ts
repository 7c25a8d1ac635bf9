/**
 * The resource's type tokens as the engine records them (in the state, URNs and `pulumi preview
 * --json`). A leaf, so that what reads previews and states (`notification-handlers summary`,
 * `recover`) names the resource without loading the resource and Pulumi.
 */
import { HANDLER_RESOURCE_TOKEN } from "./tokens";

/** The dynamic resource's: `pulumi-nodejs:dynamic/<module>:<type>`. */
export const RESOURCE_TYPE = "pulumi-nodejs:dynamic/notification-handlers:NotificationHandler";

/** The handler resource's type in a state or a preview: the dynamic face's, or the plugin's token. */
export const HANDLER_RESOURCE_TYPES: readonly string[] = [RESOURCE_TYPE, HANDLER_RESOURCE_TOKEN];
