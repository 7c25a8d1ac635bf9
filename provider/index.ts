/** The Pulumi side of the package: the resource, its argument types and lookups. */
export {
  type ConnectionArgs,
  NotificationHandler,
  type NotificationHandlerArgs,
  type NotificationHandlerArgsOf,
  type NotificationHandlerCommonArgs,
  type NotificationHandlerFields,
  type NotificationHandlerOptions,
} from "./resource";
export { HandlerSet, type HandlerSetArgs, HandlerSetError } from "./handler-set";
export type { SetProblem } from "./handler-set-format";
export type { UpdateStrategy } from "../sdk/client/settings";
export * from "./lookup";
