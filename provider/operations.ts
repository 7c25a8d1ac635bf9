/**
 * The provider's operations as the engine calls them (check, diff, create, read, update, delete),
 * over a {@link ProviderContext}: the real process's one in `./runtime`, or a test's around a fake API.
 */
import type * as pulumi from "@pulumi/pulumi";

import { ALL_FIELDS } from "../sdk/catalog";
import { adoptable } from "./adoption";
import { requireConnection } from "./config";
import type { ProviderContext } from "./context";
import {
  type HandlerInputs,
  type HandlerOutputs,
  type LiveHandler,
  UNKNOWN,
  changedInputs,
  checkInputs,
  describeDifferences,
  desiredFrom,
  differences,
  inputsFromOutputs,
  outputsFrom,
  refreshedOutputs,
} from "./inputs";
import { recordOnFailure } from "./partial-failure";
import { inputsKey } from "./replacements";
import { createHandler, deleteHandler, updateHandler } from "./writes";

/** Inputs that decide what is sent to the API. */
const API_PROPERTIES = ["type", "name", "isEnabled", "updateStrategy", ...ALL_FIELDS.map((f) => f.property)];

function handlerId(id: pulumi.ID): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`"${id}" is not a notification handler id`);
  return n;
}

/** Checks inputs against the catalog before any API call. */
export function check(ctx: ProviderContext, news: HandlerInputs): pulumi.dynamic.CheckResult {
  requireConnection(ctx.settings);
  return { inputs: news, failures: checkInputs(news) };
}

/** Compares the desired inputs with the handler's live state, so drift shows up without `--refresh`. */
export async function diff(
  ctx: ProviderContext,
  id: pulumi.ID,
  olds: HandlerInputs,
  news: HandlerInputs,
): Promise<pulumi.dynamic.DiffResult> {
  const n = handlerId(id);
  ctx.account.claim(n); // managed by this resource: no other resource may adopt it
  const live = await ctx.account.byId(n);
  if (live === undefined) {
    ctx.note(
      `handler ${n} (${JSON.stringify(olds.name)}) no longer exists in the API; it will be created again`,
    );
    ctx.replacements.add(inputsKey(news));
    return { changes: true, replaces: ["handlerId"], deleteBeforeReplace: false };
  }
  // A value known only at apply time cannot be compared yet: the engine shows a possible change.
  if (API_PROPERTIES.some((p) => news[p] === UNKNOWN)) {
    return news.type === UNKNOWN || news.updateStrategy === UNKNOWN
      ? { changes: true, replaces: ["type"], deleteBeforeReplace: false }
      : { changes: true };
  }
  const desired = desiredFrom(news);
  const drift = differences(desired, live);
  const changed = [...new Set([...drift.map((d) => d.property), ...changedInputs(olds, news)])];
  if (changed.length === 0) return { changes: false };
  // The live handler already is what the program wants (edited to match, say): record the new
  // inputs without touching it; update() then sends nothing.
  if (drift.length === 0) return { changes: true, replaces: [] };
  ctx.note(
    `handler ${n} (${JSON.stringify(desired.name)}) differs from the program:\n${describeDifferences(drift)}`,
  );
  const replace = changed.includes("type") || ctx.strategyOf(news) === "replace";
  if (replace) ctx.replacements.add(inputsKey(news));
  return { changes: true, replaces: replace ? changed : [], deleteBeforeReplace: false };
}

/** Creates the handler (or takes one over with `adopt`), verified by reading it back. */
export async function create(
  ctx: ProviderContext,
  inputs: HandlerInputs,
): Promise<pulumi.dynamic.CreateResult> {
  const desired = desiredFrom(inputs);
  const adopted = await adoptable(ctx, inputs, desired);
  let live: LiveHandler;
  if (adopted === undefined) {
    live = await createHandler(ctx, desired, inputs);
  } else if (differences(desired, adopted).length === 0) {
    live = adopted;
  } else if (ctx.strategyOf(inputs) === "replace") {
    live = await createHandler(ctx, desired, inputs);
    await recordOnFailure(live, inputs, () => deleteHandler(ctx, adopted.id));
  } else {
    live = await updateHandler(ctx, adopted, desired, inputs);
  }
  return { id: String(live.id), outs: outputsFrom(inputs, live) };
}

/** Brings the handler to the new inputs in place (the engine calls this only for in-place changes). */
export async function update(
  ctx: ProviderContext,
  id: pulumi.ID,
  olds: HandlerOutputs | HandlerInputs,
  news: HandlerInputs,
): Promise<pulumi.dynamic.UpdateResult> {
  const n = handlerId(id);
  const desired = desiredFrom(news);
  const before = await ctx.account.byId(n);
  if (before === undefined)
    throw new Error(
      `handler ${n} (${JSON.stringify(olds.name)}) no longer exists; run \`pulumi up\` again to create it`,
    );
  const live =
    differences(desired, before).length === 0 ? before : await updateHandler(ctx, before, desired, news);
  return { outs: outputsFrom(news, live) };
}

/** Deletes the handler; one already gone is fine. */
export async function remove(ctx: ProviderContext, id: pulumi.ID): Promise<void> {
  await deleteHandler(ctx, handlerId(id));
}

/** Reads the live handler for `pulumi refresh` and `NotificationHandler.get`; gone means no id. */
export async function read(
  ctx: ProviderContext,
  id: pulumi.ID,
  props?: HandlerOutputs | HandlerInputs,
): Promise<pulumi.dynamic.ReadResult> {
  const n = handlerId(id);
  ctx.account.claim(n);
  const live = await ctx.account.byId(n);
  if (live === undefined) return {};
  const outs = refreshedOutputs(props ?? {}, live);
  // Secret fields stay out of the recorded inputs: only outputs are marked secret by the resource.
  const inputs = inputsFromOutputs(outs);
  for (const spec of ALL_FIELDS) if (spec.secret) delete inputs[spec.property];
  return { id: String(n), props: outs, inputs };
}
