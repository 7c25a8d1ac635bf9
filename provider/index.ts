/**
 * The Pulumi side of the package, as a release promises it (`pulumi-notification-handlers/provider`,
 * and the package root): the resource, handler sets, the lookups and their argument and result types.
 * What runs inside Pulumi's provider process is `./dynamic/runtime`, its own export path
 * (`./provider/runtime`). api/provider.api.md records this list.
 */
export {
  type ConnectionArgs,
  NotificationHandler,
  type NotificationHandlerArgs,
  type NotificationHandlerArgsOf,
  type NotificationHandlerCommonArgs,
  type NotificationHandlerFields,
  type NotificationHandlerOptions,
} from "./dynamic/resource";
export { HandlerSet, type HandlerSetArgs, HandlerSetError } from "./dynamic/handler-set";
export type { SetProblem } from "./handler-sets/format";
export type { UpdateStrategy } from "../sdk/client/domain/settings";
export {
  type GetNotificationHandlerOutputArgs,
  getNotificationHandler,
  getNotificationHandlerOutput,
  getNotificationHandlers,
  getNotificationHandlersOutput,
  type LookupOptions,
  type LookupOutputOptions,
  type NotificationHandlerFilter,
  type NotificationHandlerFilterInputs,
  type NotificationHandlerInfo,
} from "./dynamic/lookup";
