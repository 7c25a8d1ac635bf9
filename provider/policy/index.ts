/**
 * Policies for notification handlers (`pulumi-notification-handlers/policy`), for a `@pulumi/policy`
 * pack: the ready rules, the pack that serves them, and the helpers to write rules of one's own
 * (docs/policies.md). api/policy.api.md records this list.
 */
import { PolicyPack } from "@pulumi/policy";

import { HANDLER_POLICIES } from "./rules";

export {
  HANDLER_TYPES_IN_POLICIES,
  type HandlerFields,
  type HandlerView,
  type HandlerViewOf,
  PLUGIN_PROVIDER_TYPE,
  SecretValue,
  UNKNOWN,
  type Unknown,
  fieldEntries,
  handlerView,
  isHandlerResource,
  known,
} from "./handler-view";
export {
  type HandlerPolicyArgs,
  type ValidateHandler,
  type ValidateHandlers,
  describeHandler,
  handlerPolicy,
  handlerStackPolicy,
} from "./policies";
export {
  HANDLER_POLICIES,
  apiSites,
  destinationHosts,
  emailDomains,
  enabledHandlerOfTypes,
  handlerTypes,
  phoneCountryCodes,
  uniqueNames,
} from "./rules";

/** The ready pack: its rules, then `extra` ones of the team's own. */
export function handlerPolicyPack(
  name = "notification-handlers",
  extra: ConstructorParameters<typeof PolicyPack>[1]["policies"] = [],
): PolicyPack {
  return new PolicyPack(name, { policies: [...HANDLER_POLICIES, ...extra] });
}
