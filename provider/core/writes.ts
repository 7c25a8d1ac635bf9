/**
 * Writes and their verification: every create, update and delete is checked against what the server
 * stored, and a failure after a handler exists records it (a partial failure) instead of orphaning it.
 */
import { CreateOutcomeUnknownError, NotFoundError } from "../../sdk/client/core/errors";
import type { SiteContext } from "./context";
import {
  type Desired,
  type HandlerInputs,
  type LiveHandler,
  apiParams,
  desiredFrom,
  differences,
  refreshedOutputs,
} from "./inputs";
import { type Difference, describeDifferences } from "./drift-note";
import { partialFailure, recordOnFailure } from "./partial-failure";
import { createOutcomeUnknown, findCreated } from "./recovery";

/** Creates sent for one resource before giving up, when each outcome is unknown and made nothing. */
const MAX_CREATE_ATTEMPTS = 8;

/**
 * Creates a handler and verifies it against what the server stored. A create whose outcome is unknown
 * finds what it made and takes it over, else creates again (see `./recovery`). Once the handler
 * exists, every failure is a partial failure that records it, so nothing is left orphaned.
 */
export function createHandler(
  ctx: SiteContext,
  desired: Desired,
  inputs: HandlerInputs,
): Promise<LiveHandler> {
  return ctx.readBack.operation(() => create(ctx, desired, inputs));
}

async function create(ctx: SiteContext, desired: Desired, inputs: HandlerInputs): Promise<LiveHandler> {
  const params = apiParams(desired);
  const key = JSON.stringify(params);
  // Recovery needs to know which handlers existed before the create was sent (the horizon). A
  // process that has not read the account yet reads it once (ceil(N/1000) lists), shared by all
  // its creates: without it, a recovery could take over a handler someone made by hand.
  await ctx.account.all();
  let id: number | undefined;
  for (let attempt = 1; id === undefined; attempt++) {
    const horizon = ctx.account.horizon;
    const request = ctx.api().create(params as never);
    ctx.creates.track(key, request);
    try {
      id = (await request).id;
    } catch (error) {
      if (!createOutcomeUnknown(error)) throw error;
      await ctx.creates.settled(key);
      const made = await findCreated(ctx, desired, horizon);
      if (made !== undefined) {
        ctx.note(`${outcome(error)}; found the handler it made (${made.handlerId}) and took it over`);
        await ctx.account.remember(made);
        return made;
      }
      if (attempt >= MAX_CREATE_ATTEMPTS) throw error;
      ctx.note(`${outcome(error)} and no handler was made; creating it again`);
    }
  }
  // Claimed at once: a recovery running beside this create must not take it.
  ctx.account.claim(id);
  ctx.account.observe(id);
  const made = id;
  const sent: LiveHandler = {
    handlerId: made,
    type: desired.type,
    name: desired.name,
    settings: desired.fields,
    isEnabled: desired.isEnabled,
    pendingConfirmation: false,
    lastDatetime: null,
    datetime: "",
  };
  const live = await recordOnFailure(sent, inputs, () => ctx.readBack.read(made));
  if (live === undefined) throw new Error(`handler ${made} was created, but reading it back answered 404`);
  const wrong = differences(desired, live);
  if (wrong.length > 0) {
    // Leave nothing half-made: a handler that does not match the program is removed again; if even
    // that fails, the state records it so the next run can put it right or delete it.
    await recordOnFailure(live, inputs, () => remove(ctx, made));
    throw new Error(
      `the server created handler ${made} with other values than were sent, so it was deleted again:\n${describeDifferences(wrong)}`,
    );
  }
  await ctx.account.remember(live);
  return live;
}

/** How a create's unknown outcome reads in a note. */
function outcome(error: unknown): string {
  return error instanceof CreateOutcomeUnknownError
    ? "the connection failed after the create was sent"
    : `the create was answered ${(error as { status?: number }).status ?? "with an error"}, which does not prove nothing was made`;
}

/** Updates a handler, reads it back, and fails plainly if the server did not apply the update. */
export function updateHandler(
  ctx: SiteContext,
  before: LiveHandler,
  desired: Desired,
  inputs: HandlerInputs,
): Promise<LiveHandler> {
  return ctx.readBack.operation(async () => {
    await ctx.api().update(before.handlerId, apiParams(desired));
    const live = await ctx.readBack.read(before.handlerId);
    if (live === undefined)
      throw new Error(`handler ${before.handlerId} disappeared while it was being updated`);
    await ctx.account.remember(live);
    const wrong = differences(desired, live);
    if (wrong.length > 0) throw updateFailure(before, live, wrong, inputs);
    return live;
  });
}

/** The error of an update the server did not apply; it records the handler as it now is. */
function updateFailure(
  before: LiveHandler,
  live: LiveHandler,
  wrong: Difference[],
  inputs: HandlerInputs,
): Error {
  let what: string;
  if (live.type === null) {
    what =
      "answered 200 but wiped the handler's type and settings (type is now null): " +
      "the known update defect of deployed instances from 2026";
  } else if (sameState(before, live)) {
    what = "answered 200 but saved nothing: the known update defect of deployed instances from 2025";
  } else {
    what = "answered 200 but stored other values than were sent";
  }
  const message =
    `updating handler ${before.handlerId} (${JSON.stringify(desiredFrom(inputs).name)}) failed: the server ${what}.\n` +
    `${describeDifferences(wrong)}\n` +
    'Way out: set `updateStrategy: "replace"` on this resource, or for all of them with ' +
    "`pulumi config set notification-handlers:updateStrategy replace`; changes then create a new handler " +
    "and delete the old one. The state now records the handler as the server has it.";
  // The state must never disagree with the API: record the handler as it now is.
  return partialFailure(message, before.handlerId, { ...refreshedOutputs(inputs, live), type: live.type });
}

function sameState(a: LiveHandler, b: LiveHandler): boolean {
  return (
    a.type === b.type &&
    a.name === b.name &&
    a.isEnabled === b.isEnabled &&
    JSON.stringify(a.settings) === JSON.stringify(b.settings)
  );
}

/** Deletes a handler and verifies it is gone; a handler already gone is fine. */
export function deleteHandler(ctx: SiteContext, id: number): Promise<void> {
  return ctx.readBack.operation(() => remove(ctx, id));
}

async function remove(ctx: SiteContext, id: number): Promise<void> {
  try {
    await ctx.api().delete(id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  if ((await ctx.readBack.read(id)) !== undefined) {
    throw new Error(`the server answered the delete of handler ${id}, but the handler still exists`);
  }
  await ctx.account.forget(id);
}
