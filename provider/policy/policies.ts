/**
 * Helpers that make a `@pulumi/policy` policy of a check on handlers: the policy matches a handler of
 * either provider (both type tokens) and hands the check its typed view (`./handler-view`).
 */
import type {
  EnforcementLevel,
  PolicyConfigSchema,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";

import { type HandlerView, handlerView } from "./handler-view";

/** What every policy declares: its name (the one `--policy-pack-config` configures), what it checks. */
export interface HandlerPolicyArgs {
  name: string;
  description: string;
  /** `mandatory` fails a preview or an up, `advisory` warns, `disabled` skips; `advisory` if left out. */
  enforcementLevel?: EnforcementLevel;
  configSchema?: PolicyConfigSchema;
}

/** A check of one handler; `report` takes a message, which must never hold a secret's value. */
export type ValidateHandler = (
  handler: HandlerView,
  args: ResourceValidationArgs,
  report: ReportViolation,
) => void | Promise<void>;

/** A resource policy that runs `validateHandler` on each handler, made by either provider. */
export function handlerPolicy(
  args: HandlerPolicyArgs & { validateHandler: ValidateHandler },
): ResourceValidationPolicy {
  const { validateHandler, ...declared } = args;
  return {
    enforcementLevel: "advisory",
    ...declared,
    validateResource: async (resource, report) => {
      const handler = handlerView(resource);
      if (handler !== undefined) await validateHandler(handler, resource, report);
    },
  };
}

/** A check of the stack's handlers together; `report(message, urn)` names the resource at fault. */
export type ValidateHandlers = (
  handlers: HandlerView[],
  args: StackValidationArgs,
  report: ReportViolation,
) => void | Promise<void>;

/** A stack policy that runs `validateHandlers` on every handler of the stack, of both providers. */
export function handlerStackPolicy(
  args: HandlerPolicyArgs & { validateHandlers: ValidateHandlers },
): StackValidationPolicy {
  const { validateHandlers, ...declared } = args;
  return {
    enforcementLevel: "advisory",
    ...declared,
    validateStack: async (stack, report) => {
      const handlers = stack.resources.flatMap((resource) => handlerView(resource) ?? []);
      await validateHandlers(handlers, stack, report);
    },
  };
}

/** How messages name a handler: its resource's name in the program. */
export function describeHandler(handler: HandlerView): string {
  return `handler "${handler.resourceName}" (${handler.type})`;
}
