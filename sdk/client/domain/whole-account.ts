/**
 * Reading a whole account: every handler, by id, in pages of the largest size. The one read that the
 * provider's account snapshot and the export both make.
 */
import type { PageMeta } from "../core/pagination";
import { MAX_RESULTS_PER_PAGE } from "./list-rules";
import type { NotificationHandlerRecord } from "./resources/handler-parsing";
import type { NotificationHandlers } from "./resources/notification-handlers";

/** Which list shape an account's pages answered in (docs/api.md#deployed-list-meta). */
export type ListDialect = PageMeta["dialect"];

/** Every handler of an account, and the list shape its pages answered in. */
export interface WholeAccount {
  handlers: NotificationHandlerRecord[];
  /** `"deployed"` when any page answered in the deployed shape. */
  dialect: ListDialect;
}

/** Reads every handler of the account, each once, in id order. */
export async function readWholeAccount(api: Pick<NotificationHandlers, "list">): Promise<WholeAccount> {
  const handlers = new Map<number, NotificationHandlerRecord>();
  let dialect: ListDialect;
  const first = await api.list({
    results_per_page: MAX_RESULTS_PER_PAGE,
    order_by: "notification_handler_id",
    order_type: "ASC",
  });
  for await (const page of first.iterPages()) {
    if (dialect !== "deployed") dialect = page.meta.dialect ?? dialect;
    for (const handler of page.data) if (!handlers.has(handler.id)) handlers.set(handler.id, handler);
  }
  return { handlers: [...handlers.values()], dialect };
}
