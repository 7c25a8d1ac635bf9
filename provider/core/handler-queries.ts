/**
 * The queries behind the lookups (`getNotificationHandler`, `getNotificationHandlers`), over any
 * handlers API: the program's lookups (`../dynamic/lookup`) and the plugin's invokes run the same code.
 */
import type { HandlerType } from "../../sdk/client/domain/catalog";
import { equalAfterCleaning } from "../../sdk/client/domain/cleaning";
import { MAX_RESULTS_PER_PAGE } from "../../sdk/client/domain/list-rules";
import type { NotificationHandlerListParams } from "../../sdk/client/domain/resources/handler-params";
import type { HandlersApi } from "./handlers-api";
import { type LiveHandler, toLive } from "./inputs";

/** Filters of a lookup of several handlers. */
export interface NotificationHandlerFilter {
  /** Exact name (compared as the API stores it). */
  name?: string;
  /** Case-insensitive part of the name. */
  search?: string;
  type?: HandlerType;
  isEnabled?: boolean;
}

/** What names the one handler a lookup wants. */
export interface NotificationHandlerName {
  name: string;
  type?: HandlerType;
}

/** Every handler that matches the filter (all of the account's when it is empty). */
export async function findHandlers(
  api: Pick<HandlersApi, "list">,
  filter: NotificationHandlerFilter,
): Promise<LiveHandler[]> {
  const params: NotificationHandlerListParams = { results_per_page: MAX_RESULTS_PER_PAGE };
  // An exact name is compared below, not searched for: deployed instances search the stored
  // (cleaned) name, which differs from the program's where it has quotes or tags.
  if (filter.search !== undefined) params.search = filter.search;
  if (filter.type !== undefined) params.type = filter.type;
  if (filter.isEnabled !== undefined) params.is_enabled = filter.isEnabled;
  const found: LiveHandler[] = [];
  for await (const handler of api.list(params)) {
    // Some deployed versions ignore list filters: apply them again here.
    if (filter.type !== undefined && handler.type !== filter.type) continue;
    if (filter.isEnabled !== undefined && handler.is_enabled !== filter.isEnabled) continue;
    if (filter.name !== undefined && !equalAfterCleaning("name", filter.name, handler.name)) continue;
    if (filter.search !== undefined && !handler.name.toLowerCase().includes(filter.search.toLowerCase()))
      continue;
    found.push(toLive(handler));
  }
  return found;
}

/** The one handler with this name (and type, if given); fails when there is none or more than one. */
export async function findHandler(
  api: Pick<HandlersApi, "list">,
  args: NotificationHandlerName,
): Promise<LiveHandler> {
  const found = await findHandlers(api, args);
  const what = `${JSON.stringify(args.name)}${args.type === undefined ? "" : ` of type ${args.type}`}`;
  if (found.length === 0) throw new Error(`no notification handler named ${what}`);
  if (found.length > 1) {
    throw new Error(
      `${found.length} notification handlers are named ${what} (ids ${found.map((h) => h.handlerId).join(", ")})`,
    );
  }
  return found[0] as LiveHandler;
}
