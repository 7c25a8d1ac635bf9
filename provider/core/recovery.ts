/**
 * Recovery after a create of unknown outcome (an answer that does not prove nothing was made: a 5xx,
 * a connection lost after sending, a timeout): find the handler the failed create made and take it
 * over, else create again.
 *
 * What makes it sound:
 * - Ids only grow (docs/api.md#ids), so a handler made by the failed create has an id above every
 *   id this process knew when the create was sent (the horizon). Handlers at or below it are never
 *   taken, however well they match.
 * - The list is read newest first, page after page, down to the horizon; when the pages' ids do not
 *   descend (2025 instances ignore the order) every page is read. Matching is done here, through
 *   the cleaning deployed instances apply, never by the server's search.
 * - Claims: a handler a resource of this process manages, or that another recovery took, is never
 *   taken; the claim is made before any other await, so two recoveries never take the same handler.
 * - A create of the same values still in flight may have made the newest match: the search waits
 *   for it to settle (and claim its handler) first.
 */
import { CreateOutcomeUnknownError, InternalServerError } from "../../sdk/client/core/errors";
import { MAX_RESULTS_PER_PAGE } from "../../sdk/client/domain/list-rules";
import type { Account } from "./account";
import type { HandlersApi } from "./handlers-api";
import { type Desired, type LiveHandler, differences, toLive } from "./inputs";

/** Whether a failed create may nevertheless have made the handler. */
export function createOutcomeUnknown(error: unknown): boolean {
  // A plain connection error of a create is one the client proved was never sent.
  return error instanceof CreateOutcomeUnknownError || error instanceof InternalServerError;
}

/** The creates in flight, by the values they send, so a recovery can wait for its twins. */
export class CreatesInFlight {
  private readonly byKey = new Map<string, Set<Promise<unknown>>>();

  /** Registers a create request until it settles. */
  track(key: string, request: Promise<unknown>): void {
    const set = this.byKey.get(key) ?? new Set<Promise<unknown>>();
    set.add(request);
    this.byKey.set(key, set);
    const done = (): void => {
      set.delete(request);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
    request.then(done, done);
  }

  /** Waits until every other create of the same values that is in flight now has settled. */
  async settled(key: string): Promise<void> {
    const others = [...(this.byKey.get(key) ?? [])];
    await Promise.allSettled(others);
    // Their continuations (which claim what they made) ran before this one: they awaited first.
    await Promise.resolve();
  }
}

/**
 * The newest unclaimed handler above `horizon` that matches `desired`, claimed; undefined when the
 * failed create made none.
 */
export async function findCreated(
  ctx: { api(): HandlersApi; account: Pick<Account, "observe" | "isClaimed" | "claim"> },
  desired: Desired,
  horizon: number,
): Promise<LiveHandler | undefined> {
  const candidates: LiveHandler[] = [];
  const first = await ctx.api().list({
    order_by: "notification_handler_id",
    order_type: "DESC",
    results_per_page: MAX_RESULTS_PER_PAGE,
  });
  let previous = Number.POSITIVE_INFINITY;
  let descending = true;
  for await (const page of first.iterPages()) {
    for (const handler of page.data) {
      if (handler.id >= previous) descending = false;
      previous = handler.id;
      ctx.account.observe(handler.id);
      const h = toLive(handler);
      if (
        h.handlerId > horizon &&
        !ctx.account.isClaimed(h.handlerId) &&
        differences(desired, h).length === 0
      )
        candidates.push(h);
    }
    // Newest first, proven so far: what follows is older than the create.
    if (descending && previous <= horizon) break;
  }
  candidates.sort((a, b) => b.handlerId - a.handlerId);
  const found = candidates.find((h) => !ctx.account.isClaimed(h.handlerId));
  // Claimed before any other await, so two recoveries running side by side never take the same one.
  if (found !== undefined) ctx.account.claim(found.handlerId);
  return found;
}
