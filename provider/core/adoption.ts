/**
 * Adoption: `adopt: true` takes over the one unclaimed handler of the same name and type, `adopt:
 * <id>` that handler. It applies to a resource's first create only (the caller knows a replacement).
 */
import { equalAfterCleaning } from "../../sdk/client/domain/cleaning";
import type { SiteContext } from "./context";
import type { Desired, HandlerInputs, LiveHandler } from "./inputs";

/**
 * Finds the existing handler `adopt` names and claims it for this resource (no other may take it
 * over); undefined when there is none to take over and a new one is to be created.
 */
export async function claimHandlerToAdopt(
  ctx: SiteContext,
  inputs: HandlerInputs,
  desired: Desired,
): Promise<LiveHandler | undefined> {
  // Another resource may claim the one found while this one waited: then look again.
  for (;;) {
    const live = await findHandlerToAdopt(ctx, inputs, desired);
    if (live === undefined || !ctx.account.isClaimed(live.handlerId)) {
      if (live !== undefined) {
        ctx.account.claim(live.handlerId);
        ctx.note(`taking over handler ${live.handlerId} (${JSON.stringify(live.name)})`);
      }
      return live;
    }
  }
}

/**
 * The existing handler `adopt` names, unclaimed, without claiming it (a preview's check asks too);
 * undefined when `adopt` takes over nothing.
 */
export async function findHandlerToAdopt(
  ctx: SiteContext,
  inputs: HandlerInputs,
  desired: Desired,
): Promise<LiveHandler | undefined> {
  const adopt = inputs.adopt;
  if (adopt === undefined || adopt === false) return undefined;
  if (typeof adopt === "number") {
    if (ctx.account.isClaimed(adopt))
      throw new Error(`adopt: handler ${adopt} is already managed by another resource`);
    const live = await ctx.account.read(adopt);
    if (live === undefined)
      throw new Error(`adopt: handler ${adopt} does not exist (or belongs to another account)`);
    return live;
  }
  // Sorted here: 2025 instances ignore the list order.
  const matches = [...(await ctx.account.all()).values()]
    .filter(
      (h) =>
        h.type === desired.type &&
        equalAfterCleaning("name", desired.name, h.name) &&
        !ctx.account.isClaimed(h.handlerId),
    )
    .sort((a, b) => a.handlerId - b.handlerId);
  if (matches.length > 1) {
    throw new Error(
      `adopt: ${matches.length} handlers are named ${JSON.stringify(desired.name)} with type ${desired.type} ` +
        `(ids ${matches.map((h) => h.handlerId).join(", ")}); set adopt to the id of the one to take over`,
    );
  }
  return matches[0];
}
