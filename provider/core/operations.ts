/**
 * The provider's operations as the engine calls them (check, diff, create, read, update, delete),
 * over a {@link ProviderContext}: the real process's one in `../runtime`, or a test's around a fake API.
 * Each resource's call reads its connection once, its inputs' for diff, create and update, its
 * recorded outputs' for read and delete, and goes to that connection's state (`ctx.site(...)`). The
 * results are the core's own types: the dynamic provider's host takes them as they are, the plugin
 * encodes them.
 */
import { ALL_FIELDS } from "../../sdk/client/catalog";
import { claimHandlerToAdopt } from "./adoption";
import { type Connection, requireConnection } from "./config";
import {
  CONNECTION_PROPERTY,
  UNKNOWN_CONNECTION,
  connectionFailures,
  describeConnection,
  explicitConnection,
  siteOf,
} from "./connection";
import type { ProviderContext } from "./context";
import {
  type CheckFailure,
  type HandlerInputs,
  type HandlerOutputs,
  type LiveHandler,
  UNKNOWN,
  changedInputs,
  checkInputs,
  desiredFrom,
  differences,
  inputsFromOutputs,
  outputsFrom,
  refreshedOutputs,
} from "./inputs";
import type { Note } from "./diagnostics";
import { type Difference, formatDriftNote } from "./drift-note";
import { recordOnFailure } from "./partial-failure";
import { inputsKey } from "./replacements";
import { createHandler, deleteHandler, updateHandler } from "./writes";

/** Inputs that decide what is sent to the API. */
const API_PROPERTIES = ["type", "name", "isEnabled", "updateStrategy", ...ALL_FIELDS.map((f) => f.property)];

/** A check's result: the inputs and each failure (none when they are good). */
export type CheckResult = { inputs: HandlerInputs; failures: CheckFailure[] };

/**
 * A diff's result, and each property it found changed (drifted in the API or edited in the program):
 * the plugin reports them one by one, which the dynamic provider's protocol cannot carry.
 */
export type HandlerDiff = {
  changes: boolean;
  replaces?: string[];
  deleteBeforeReplace?: boolean;
  changed: string[];
};

/** A create's result: the handler's id and the resource's outputs. */
export type CreateResult = { id: string; outs: HandlerOutputs };
/** An update's result: the resource's outputs. */
export type UpdateResult = { outs: HandlerOutputs };
/** A read's result: the handler's id, outputs and inputs to record; none of them when it is gone. */
export type ReadResult = { id?: string; props?: HandlerOutputs; inputs?: HandlerInputs };

function handlerId(id: string): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`"${id}" is not a notification handler id`);
  return n;
}

/**
 * Checks inputs against the catalog before any API call. The engine prints the value of the property a
 * failure names, secret or not, so each failure is the resource's, naming its property in the reason.
 */
export function check(ctx: ProviderContext, news: HandlerInputs): CheckResult {
  // A resource with a connection of its own does not need the provider's.
  if (news.connection === undefined || news.connection === null) requireConnection(ctx.settings);
  const failures = [...checkInputs(news), ...connectionFailures(news.connection)].map((f) => ({
    property: "",
    reason: f.property === "" ? f.reason : `${f.property} ${f.reason}`,
  }));
  return { inputs: news, failures };
}

/**
 * Compares the desired inputs with the handler's live state, so drift shows up without `--refresh`.
 * A handler moved to another site (a `connection` with another base URL) is replaced: created there,
 * then deleted from the old one. A new key for the same site (key rotation) changes nothing in the API.
 * Its notes for the user (drift, a handler gone, a move) go to `note`.
 */
export async function diff(
  ctx: ProviderContext,
  id: string,
  olds: HandlerInputs,
  news: HandlerInputs,
  note: Note = ctx.note,
): Promise<HandlerDiff> {
  const n = handlerId(id);
  const connection = explicitConnection(news);
  if (connection === UNKNOWN_CONNECTION) return replacedFor(CONNECTION_PROPERTY);
  const site = ctx.site(connection);
  const from = previousConnection(ctx, olds);
  if (from !== undefined && siteOf(from.baseUrl) !== siteOf(site.connection.baseUrl)) {
    note(
      `handler ${n} (${JSON.stringify(olds.name)}) moves from ${describeConnection(from)} to ${site.label}: ` +
        "it will be created there, then deleted from the old site",
    );
    site.replacements.add(inputsKey(news));
    return replacedFor(CONNECTION_PROPERTY);
  }
  site.account.claim(n); // managed by this resource: no other resource may adopt it
  const live = await site.account.byId(n);
  if (live === undefined) {
    const name = typeof olds.name === "string" ? olds.name : desiredFrom(news).name;
    note(formatDriftNote({ kind: "gone", id: n, name }));
    site.replacements.add(inputsKey(news));
    return replacedFor("handlerId");
  }
  // A value known only at apply time cannot be compared yet: the engine shows a possible change.
  const unknown = API_PROPERTIES.filter((p) => news[p] === UNKNOWN);
  if (unknown.length > 0) {
    return news.type === UNKNOWN || news.updateStrategy === UNKNOWN
      ? { changes: true, replaces: ["type"], deleteBeforeReplace: false, changed: unknown }
      : { changes: true, changed: unknown };
  }
  const desired = desiredFrom(news);
  const drift = differences(desired, live);
  const edited = changedInputs(olds, news);
  const changed = [...new Set([...drift.map((d) => d.property), ...edited])];
  // The same site with another key, or the provider's configuration spelled as a connection: the
  // state records it, the API is not touched.
  if (JSON.stringify(olds.connection ?? null) !== JSON.stringify(news.connection ?? null))
    changed.push(CONNECTION_PROPERTY);
  if (changed.length === 0) return { changes: false, changed };
  // The live handler already is what the program wants (edited to match, say): record the new
  // inputs without touching it; update() then sends nothing.
  if (drift.length === 0) return { changes: true, replaces: [], changed };
  note(
    formatDriftNote({
      kind: "differs",
      id: n,
      name: desired.name,
      fields: withOrigins(drift, edited, olds, live),
    }),
  );
  const replace = changed.includes("type") || ctx.strategyOf(news) === "replace";
  if (replace) site.replacements.add(inputsKey(news));
  return { changes: true, replaces: replace ? changed : [], deleteBeforeReplace: false, changed };
}

/** A diff that replaces the handler for `property` alone: created anew, then the old one deleted. */
function replacedFor(property: string): HandlerDiff {
  return { changes: true, replaces: [property], deleteBeforeReplace: false, changed: [property] };
}

/**
 * Who made each drifted field differ: the code, when its value changed since the recorded inputs;
 * someone outside it, when the live value is no longer the recorded one; or both.
 */
function withOrigins(
  drift: readonly Difference[],
  edited: readonly string[],
  olds: HandlerInputs,
  live: LiveHandler,
): Difference[] {
  const moved = new Set(differences(desiredFrom(olds), live).map((d) => d.property));
  return drift.map((d) => ({
    ...d,
    origin: edited.includes(d.property) ? (moved.has(d.property) ? "both" : "code") : "outside",
  }));
}

/**
 * The connection a resource's recorded state used; undefined when it used the provider's
 * configuration and that is not set now (nothing to compare with: the new connection is taken as the same site).
 */
function previousConnection(ctx: ProviderContext, olds: HandlerInputs): Connection | undefined {
  const own = explicitConnection(olds);
  if (own !== undefined && own !== UNKNOWN_CONNECTION) return own;
  const { baseUrl, apiKey } = ctx.settings;
  return baseUrl === undefined || apiKey === undefined ? undefined : { baseUrl, apiKey };
}

/** Creates the handler (or takes one over with `adopt`), verified by reading it back. */
export async function create(ctx: ProviderContext, inputs: HandlerInputs): Promise<CreateResult> {
  const site = ctx.site(explicitConnection(inputs));
  const desired = desiredFrom(inputs);
  const adopted = await claimHandlerToAdopt(site, inputs, desired);
  let live: LiveHandler;
  if (adopted === undefined) {
    live = await createHandler(site, desired, inputs);
  } else if (differences(desired, adopted).length === 0) {
    live = adopted;
  } else if (ctx.strategyOf(inputs) === "replace") {
    live = await createHandler(site, desired, inputs);
    await recordOnFailure(live, inputs, () => deleteHandler(site, adopted.handlerId));
  } else {
    live = await updateHandler(site, adopted, desired, inputs);
  }
  return { id: String(live.handlerId), outs: outputsFrom(inputs, live) };
}

/** Brings the handler to the new inputs in place (the engine calls this only for in-place changes). */
export async function update(
  ctx: ProviderContext,
  id: string,
  olds: HandlerOutputs | HandlerInputs,
  news: HandlerInputs,
): Promise<UpdateResult> {
  const n = handlerId(id);
  const site = ctx.site(explicitConnection(news));
  const desired = desiredFrom(news);
  const before = await site.account.byId(n);
  if (before === undefined)
    throw new Error(
      `handler ${n} (${JSON.stringify(olds.name)}) no longer exists; run \`pulumi up\` again to create it`,
    );
  const live =
    differences(desired, before).length === 0 ? before : await updateHandler(site, before, desired, news);
  return { outs: outputsFrom(news, live) };
}

/** Deletes the handler, through the connection its state records; one already gone is fine. */
export async function remove(ctx: ProviderContext, id: string, props: HandlerInputs = {}): Promise<void> {
  await deleteHandler(ctx.site(explicitConnection(props)), handlerId(id));
}

/** Reads the live handler for `pulumi refresh` and `NotificationHandler.get`; gone means no id. */
export async function read(
  ctx: ProviderContext,
  id: string,
  props?: HandlerOutputs | HandlerInputs,
): Promise<ReadResult> {
  const n = handlerId(id);
  const site = ctx.site(explicitConnection(props ?? {}));
  site.account.claim(n);
  const live = await site.account.byId(n);
  if (live === undefined) return {};
  const outs = refreshedOutputs(props ?? {}, live);
  // Secret fields and the connection (its key) stay out of the recorded inputs: only outputs are
  // marked secret by the resource. Diffs, updates and deletes read the recorded outputs.
  const inputs = inputsFromOutputs(outs);
  for (const spec of ALL_FIELDS) if (spec.secret) delete inputs[spec.property];
  delete inputs[CONNECTION_PROPERTY];
  return { id: String(n), props: outs, inputs };
}
