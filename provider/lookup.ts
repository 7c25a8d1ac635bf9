/**
 * Lookups for programs that need an existing handler (one the program does not manage) by name or
 * filter. They run in the program, at preview and update alike, and read with the provider's settings.
 * Each comes as a Promise (`getNotificationHandler`) and, as Pulumi packages offer, as an Output form
 * taking Inputs (`getNotificationHandlerOutput`), whose result is secret because it holds `settings`.
 */
import * as pulumi from "@pulumi/pulumi";

import type { HandlerType } from "../sdk/catalog";
import { equalAfterCleaning } from "../sdk/cleaning";
import { MAX_RESULTS_PER_PAGE } from "../sdk/list-rules";
import type { NotificationHandlerListParams } from "../sdk";
import { type LiveHandler, toLive } from "./inputs";
import { type LookupOptions, lookupClient } from "./lookup-client";

/** A handler found by a lookup, as the API reports it: the provider's view of a live handler. */
export type NotificationHandlerInfo = LiveHandler;

/** Filters of {@link getNotificationHandlers}. */
export interface NotificationHandlerFilter {
  /** Exact name (compared as the API stores it). */
  name?: string;
  /** Case-insensitive part of the name. */
  search?: string;
  type?: HandlerType;
  isEnabled?: boolean;
}

export type { LookupOptions } from "./lookup-client";

/**
 * {@link LookupOptions} of the Output forms: each may be an Input (the key from a secret config, say),
 * so the `connection` given to resources can be passed as it is.
 */
export interface LookupOutputOptions {
  baseUrl?: pulumi.Input<string>;
  apiKey?: pulumi.Input<string>;
}

/** Every handler that matches the filter (all of the account's when it is empty). */
export async function getNotificationHandlers(
  filter: NotificationHandlerFilter = {},
  options: LookupOptions = {},
): Promise<NotificationHandlerInfo[]> {
  const client = lookupClient(options);
  try {
    const params: NotificationHandlerListParams = { results_per_page: MAX_RESULTS_PER_PAGE };
    // An exact name is compared below, not searched for: deployed instances search the stored
    // (cleaned) name, which differs from the program's where it has quotes or tags.
    if (filter.search !== undefined) params.search = filter.search;
    if (filter.type !== undefined) params.type = filter.type;
    if (filter.isEnabled !== undefined) params.is_enabled = filter.isEnabled;
    const found: NotificationHandlerInfo[] = [];
    for await (const handler of client.notificationHandlers.list(params)) {
      // Some deployed versions ignore list filters: apply them again here.
      if (filter.type !== undefined && handler.type !== filter.type) continue;
      if (filter.isEnabled !== undefined && handler.is_enabled !== filter.isEnabled) continue;
      if (filter.name !== undefined && !equalAfterCleaning("name", filter.name, handler.name)) continue;
      if (filter.search !== undefined && !handler.name.toLowerCase().includes(filter.search.toLowerCase()))
        continue;
      found.push(toLive(handler));
    }
    return found;
  } finally {
    await client.close();
  }
}

/** The one handler with this name (and type, if given); fails when there is none or more than one. */
export async function getNotificationHandler(
  args: { name: string; type?: HandlerType },
  options: LookupOptions = {},
): Promise<NotificationHandlerInfo> {
  const found = await getNotificationHandlers(args, options);
  const what = `${JSON.stringify(args.name)}${args.type === undefined ? "" : ` of type ${args.type}`}`;
  if (found.length === 0) throw new Error(`no notification handler named ${what}`);
  if (found.length > 1) {
    throw new Error(
      `${found.length} notification handlers are named ${what} (ids ${found.map((h) => h.handlerId).join(", ")})`,
    );
  }
  return found[0] as NotificationHandlerInfo;
}

/** Arguments of {@link getNotificationHandlerOutput}. */
export interface GetNotificationHandlerOutputArgs {
  name: pulumi.Input<string>;
  type?: pulumi.Input<HandlerType>;
}

/** Filters of {@link getNotificationHandlersOutput}, each an Input. */
export type NotificationHandlerFilterInputs = {
  [K in keyof NotificationHandlerFilter]?: pulumi.Input<NonNullable<NotificationHandlerFilter[K]>>;
};

/**
 * {@link getNotificationHandler} as an Output, taking Inputs. The result is secret, since `settings`
 * may hold credentials: `pulumi.unsecret(found.handlerId)` gives the id alone in plain form.
 */
export function getNotificationHandlerOutput(
  args: GetNotificationHandlerOutputArgs,
  options: LookupOutputOptions = {},
): pulumi.Output<NotificationHandlerInfo> {
  const found = pulumi
    .all([pulumi.output(args), pulumi.output(options)])
    .apply(([a, o]) => getNotificationHandler(withoutUndefined(a), withoutUndefined(o)));
  return pulumi.secret(found);
}

/** {@link getNotificationHandlers} as an Output, taking Inputs; secret, like {@link getNotificationHandlerOutput}. */
export function getNotificationHandlersOutput(
  filter: NotificationHandlerFilterInputs = {},
  options: LookupOutputOptions = {},
): pulumi.Output<NotificationHandlerInfo[]> {
  const found = pulumi
    .all([pulumi.output(filter), pulumi.output(options)])
    .apply(([f, o]) => getNotificationHandlers(withoutUndefined(f), withoutUndefined(o)));
  return pulumi.secret(found);
}

/** Drops keys whose value is undefined (an optional Input left out arrives so). */
function withoutUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}
