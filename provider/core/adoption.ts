/**
 * Adoption: `adopt: true` takes over the one unclaimed handler of the same name and type, `adopt:
 * <id>` that handler. It applies to a resource's first create only.
 */
import { equalAfterCleaning } from "../../sdk/client/cleaning";
import type { SiteContext } from "./context";
import type { Desired, HandlerInputs, LiveHandler } from "./inputs";
import { inputsKey } from "./replacements";

/**
 * Finds the existing handler `adopt` names and claims it for this resource (no other may take it
 * over); undefined when there is none to take over and a new one is to be created.
 */
export async function claimHandlerToAdopt(
  ctx: SiteContext,
  inputs: HandlerInputs,
  desired: Desired,
): Promise<LiveHandler | undefined> {
  const adopt = inputs.adopt;
  if (adopt === undefined || adopt === false || ctx.replacements.has(inputsKey(inputs))) return undefined;
  if (typeof adopt === "number") {
    if (ctx.account.isClaimed(adopt))
      throw new Error(`adopt: handler ${adopt} is already managed by another resource`);
    ctx.account.claim(adopt);
    const live = await ctx.account.read(adopt);
    if (live === undefined)
      throw new Error(`adopt: handler ${adopt} does not exist (or belongs to another account)`);
    ctx.note(`taking over handler ${adopt} (${JSON.stringify(live.name)})`);
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
  const [match] = matches;
  if (match !== undefined) {
    ctx.account.claim(match.handlerId);
    ctx.note(`taking over handler ${match.handlerId} (${JSON.stringify(match.name)})`);
  }
  return match;
}
