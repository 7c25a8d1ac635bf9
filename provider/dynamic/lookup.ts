/**
 * Lookups for programs that need an existing handler (one the program does not manage) by name or
 * filter. They run in the program, at preview and update alike, and read with the provider's settings.
 * Each comes as a Promise (`getNotificationHandler`) and, as Pulumi packages offer, as an Output form
 * taking Inputs (`getNotificationHandlerOutput`), whose result is secret because it holds `settings`.
 */
import * as pulumi from "@pulumi/pulumi";

import type { HandlerType } from "../../sdk/client/domain/catalog";
import { type NotificationHandlerFilter, findHandler, findHandlers } from "../core/handler-queries";
import type { LiveHandler } from "../core/inputs";
import { type LookupOptions, lookupClient } from "./lookup-client";

export type { NotificationHandlerFilter } from "../core/handler-queries";
export type { LookupOptions } from "./lookup-client";

/** A handler found by a lookup, as the API reports it: the provider's view of a live handler. */
export type NotificationHandlerInfo = LiveHandler;

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
    return await findHandlers(client.notificationHandlers, filter);
  } finally {
    await client.close();
  }
}

/** The one handler with this name (and type, if given); fails when there is none or more than one. */
export async function getNotificationHandler(
  args: { name: string; type?: HandlerType },
  options: LookupOptions = {},
): Promise<NotificationHandlerInfo> {
  const client = lookupClient(options);
  try {
    return await findHandler(client.notificationHandlers, args);
  } finally {
    await client.close();
  }
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
