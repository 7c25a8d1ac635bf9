/**
 * The provider's operations as the engine calls them (check, diff, create, read, update, delete),
 * over a {@link ProviderContext}: the real process's one in `../runtime`, or a test's around a fake API.
 * Each resource's call reads its connection once, its inputs' for diff, create and update, its
 * recorded outputs' for read and delete, and goes to that connection's state (`ctx.site(...)`). The
 * results are the core's own types: the dynamic provider's host takes them as they are, the plugin
 * encodes them.
 */
import { ALL_FIELDS, fieldsOf } from "../../sdk/client/domain/catalog";
import { claimHandlerToAdopt, findHandlerToAdopt } from "./adoption";
import { APPLIED_KEY, appliedRecord, withOrigins } from "./applied-record";
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
import { withDeadline } from "./deadline";
import {
  type CheckFailure,
  type Desired,
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
  withLiveValues,
} from "./inputs";
import type { Note } from "./diagnostics";
import { formatDriftNote } from "./drift-note";
import { partialFailure, recordOnFailure } from "./partial-failure";
import { replacementKey } from "./replacements";
import { SECRET_FIELD_PROPERTIES } from "./secret-properties";
import { type ResourceOptions, ignoredBy, namesProperty } from "./resource-options";
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
 * A new resource that takes over a handler (`adopt`) notes each field its create will write, so the
 * preview shows what a takeover changes.
 */
export async function check(
  ctx: ProviderContext,
  news: HandlerInputs,
  olds: HandlerInputs = {},
  note: Note = ctx.note,
  options: ResourceOptions = {},
): Promise<CheckResult> {
  // A resource with a connection of its own does not need the provider's.
  if (news.connection === undefined || news.connection === null) requireConnection(ctx.settings);
  const carried = (property: string): boolean => carriedFromLive(olds, news, property, options);
  const failures = [...checkInputs(news, carried), ...connectionFailures(news.connection)].map((f) => ({
    property: "",
    reason: f.property === "" ? f.reason : `${f.property} ${f.reason}`,
  }));
  if (failures.length === 0 && olds.type === undefined) await noteTakeover(ctx, news, note, options);
  return { inputs: news, failures };
}

/**
 * Whether a credential field missing from an existing resource's inputs is left to the live handler:
 * a refresh or an import records none of them, and the engine carries that absence over for a field
 * the program leaves to others (`ignoreChanges`; the plugin's check is not told the list, and the
 * diff fails naming a field the list turns out not to name).
 */
function carriedFromLive(
  olds: HandlerInputs,
  news: HandlerInputs,
  property: string,
  options: ResourceOptions,
): boolean {
  if (olds.type === undefined || olds[property] !== undefined || news[property] !== undefined) return false;
  if (!SECRET_FIELD_PROPERTIES.includes(property)) return false;
  return options.ignoreChanges === undefined || namesProperty(options.ignoreChanges, property);
}

/**
 * The note of a takeover whose handler differs from the code: each field live -> code that its create
 * writes (not those the program leaves to others), changed outside the code, under the handler's live
 * name. Quiet when there is nothing to take over or it is not known yet; the create says why it cannot
 * take it over.
 */
async function noteTakeover(
  ctx: ProviderContext,
  inputs: HandlerInputs,
  note: Note,
  options: ResourceOptions,
): Promise<void> {
  const connection = explicitConnection(inputs);
  const adopt = inputs.adopt;
  if (adopt === undefined || adopt === false || adopt === UNKNOWN || connection === UNKNOWN_CONNECTION)
    return;
  if (API_PROPERTIES.some((p) => inputs[p] === UNKNOWN)) return;
  const live = await findHandlerToAdopt(ctx.site(connection), inputs, desiredFrom(inputs)).catch(
    () => undefined,
  );
  if (live === undefined) return;
  const desired = withLiveValues(desiredFrom(inputs), live, ignoredBy(options));
  const fields = differences(desired, live).map((d) => ({ ...d, origin: "outside" as const }));
  if (fields.length > 0)
    note(formatDriftNote({ kind: "differs", id: live.handlerId, name: live.name, fields }));
}

/**
 * Compares the desired inputs with the handler's live state, so drift shows up without `--refresh`.
 * A handler moved to another site (a `connection` with another base URL) is replaced: created there,
 * then deleted from the old one. A new key for the same site (key rotation) changes nothing in the API.
 * A property the program leaves to others (`ignoreChanges`) is compared at its live value, so it never
 * differs; one named by `replaceOnChanges` replaces the handler when it changes. Its notes for the user
 * (drift, a handler gone, a move) go to `note`.
 */
export async function diff(
  ctx: ProviderContext,
  id: string,
  olds: HandlerInputs,
  news: HandlerInputs,
  note: Note = ctx.note,
  options: ResourceOptions = {},
): Promise<HandlerDiff> {
  const n = handlerId(id);
  const ignored = ignoredBy(options);
  const key = replacementKey(news, options);
  const connection = explicitConnection(news);
  if (connection === UNKNOWN_CONNECTION) return replacedFor(CONNECTION_PROPERTY);
  const site = ctx.site(connection);
  const from = previousConnection(ctx, olds);
  if (from !== undefined && siteOf(from.baseUrl) !== siteOf(site.connection.baseUrl)) {
    note(
      `handler ${n} (${JSON.stringify(olds.name)}) moves from ${describeConnection(from)} to ${site.label}: ` +
        "it will be created there, then deleted from the old site",
    );
    // What the program leaves to others moves with the handler: read it where it lives now, if the
    // old site answers (a site that does not is often why the handler moves).
    const kept = options.ignoreChanges?.length
      ? await ctx
          .site(from)
          .account.byId(n)
          .catch(() => undefined)
      : undefined;
    site.replacements.set(key, { kept, ignoreChanges: options.ignoreChanges });
    return replacedFor(CONNECTION_PROPERTY);
  }
  site.account.claim(n); // managed by this resource: no other resource may adopt it
  const live = await site.account.byId(n);
  if (live === undefined) {
    const name = typeof olds.name === "string" ? olds.name : desiredFrom(news).name;
    note(formatDriftNote({ kind: "gone", id: n, name }));
    site.replacements.set(key, {});
    return replacedFor("handlerId");
  }
  // The engine may replace the resource for reasons of its own (`replaceOnChanges`, `replaceWith`,
  // a trigger): a create of this resource in this process is that replacement.
  site.replacements.set(key, { kept: live, ignoreChanges: options.ignoreChanges });
  const forcesReplacement = (p: string): boolean => namesProperty(options.replaceOnChanges, p);
  // A value known only at apply time cannot be compared yet: the engine shows a possible change.
  const unknown = API_PROPERTIES.filter((p) => news[p] === UNKNOWN && !ignored(p));
  if (unknown.length > 0) {
    const replaces =
      news.type === UNKNOWN || news.updateStrategy === UNKNOWN ? ["type"] : unknown.filter(forcesReplacement);
    return { changes: true, replaces, deleteBeforeReplace: false, changed: unknown };
  }
  const desired = withLiveValues(desiredFrom(news), live, ignored);
  const missing = fieldsOf(desired.type).find((f) => desired.fields[f.field] === undefined);
  if (missing !== undefined) throw new Error(`${missing.property} is required for type ${desired.type}`);
  const drift = differences(desired, live);
  const edited = changedInputs(olds, news).filter((p) => !ignored(p));
  const changed = [...new Set([...drift.map((d) => d.property), ...edited])];
  // The same site with another key, or the provider's configuration spelled as a connection: the
  // state records it, the API is not touched.
  if (JSON.stringify(olds.connection ?? null) !== JSON.stringify(news.connection ?? null))
    changed.push(CONNECTION_PROPERTY);
  if (changed.length === 0) return { changes: false, changed };
  if (drift.length > 0) {
    const fields = withOrigins(drift, olds, desired, live, edited);
    note(formatDriftNote({ kind: "differs", id: n, name: live.name, fields }));
  }
  // Where the live handler already is what the program wants (edited to match, say), the new inputs
  // are recorded without touching it, unless `replaceOnChanges` names a changed property.
  const replace =
    changed.some(forcesReplacement) ||
    (drift.length > 0 && (changed.includes("type") || ctx.strategyOf(news) === "replace"));
  return { changes: true, replaces: replace ? changed : [], deleteBeforeReplace: false, changed };
}

/** A diff that replaces the handler for `property` alone: created anew, then the old one deleted. */
function replacedFor(property: string): HandlerDiff {
  return { changes: true, replaces: [property], deleteBeforeReplace: false, changed: [property] };
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

/** How a message names an operation on a resource: its name in the program, else its handler's. */
function operationOf(verb: string, inputs: HandlerInputs, options: ResourceOptions): string {
  return `the ${verb} of ${options.resource ?? JSON.stringify(inputs.name)}`;
}

/**
 * The outputs of a write (or of a takeover that wrote nothing), with the record of what it applied
 * (`./applied-record`).
 */
function appliedOutputs(inputs: HandlerInputs, live: LiveHandler, desired: Desired): HandlerOutputs {
  return { ...outputsFrom(inputs, live, desired), [APPLIED_KEY]: appliedRecord(desired, live) };
}

/**
 * Creates the handler (or takes one over with `adopt`), verified by reading it back. A replacement,
 * or a takeover, keeps the live values of what the program leaves to others (the `ignoreChanges` its
 * diff was given, or the create's own: the plugin's create is sent none). Past its custom timeout, it
 * fails once the request sent is answered, recording what it made.
 */
export function create(
  ctx: ProviderContext,
  inputs: HandlerInputs,
  options: ResourceOptions = {},
): Promise<CreateResult> {
  const site = ctx.site(explicitConnection(inputs));
  const replaced = site.replacements.get(replacementKey(inputs, options));
  const ignored = ignoredBy({ ignoreChanges: replaced?.ignoreChanges ?? options.ignoreChanges ?? [] });
  return withDeadline(
    operationOf("create", inputs, options),
    options.timeoutSeconds,
    async () => {
      // Adoption is for the first create only: a replacement makes a new handler.
      const adopted =
        replaced === undefined ? await claimHandlerToAdopt(site, inputs, desiredFrom(inputs)) : undefined;
      const desired = withLiveValues(desiredFrom(inputs), adopted ?? replaced?.kept, ignored);
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
      return { id: String(live.handlerId), outs: appliedOutputs(inputs, live, desired) };
    },
    (result, message) =>
      partialFailure(`${message}; handler ${result.id} is recorded`, Number(result.id), result.outs),
  );
}

/**
 * Brings the handler to the new inputs in place (the engine calls this only for in-place changes),
 * leaving what the program leaves to others as it is live.
 */
export function update(
  ctx: ProviderContext,
  id: string,
  olds: HandlerOutputs | HandlerInputs,
  news: HandlerInputs,
  options: ResourceOptions = {},
): Promise<UpdateResult> {
  const n = handlerId(id);
  const site = ctx.site(explicitConnection(news));
  const ignored = ignoredBy(options);
  return withDeadline(
    operationOf("update", news, options),
    options.timeoutSeconds,
    async () => {
      const before = await site.account.byId(n);
      if (before === undefined)
        throw new Error(
          `handler ${n} (${JSON.stringify(olds.name)}) no longer exists; run \`pulumi up\` again to create it`,
        );
      const desired = withLiveValues(desiredFrom(news), before, ignored);
      const live =
        differences(desired, before).length === 0 ? before : await updateHandler(site, before, desired, news);
      return { outs: appliedOutputs(news, live, desired) };
    },
    (result, message) => partialFailure(`${message}; handler ${n} is recorded as it now is`, n, result.outs),
  );
}

/** Deletes the handler, through the connection its state records; one already gone is fine. */
export async function remove(
  ctx: ProviderContext,
  id: string,
  props: HandlerInputs = {},
  options: ResourceOptions = {},
): Promise<void> {
  await withDeadline(operationOf("delete", props, options), options.timeoutSeconds, () =>
    deleteHandler(ctx.site(explicitConnection(props)), handlerId(id)),
  );
}

/**
 * Reads the live handler for `pulumi refresh`, `pulumi import` and `NotificationHandler.get`; gone
 * means no id. The record of the last deploy is kept as it was; an import (no recorded properties)
 * starts an empty one, as the code applied nothing to the handler.
 */
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
  const record = props === undefined ? {} : props[APPLIED_KEY];
  if (record !== undefined) outs[APPLIED_KEY] = record;
  // Secret fields and the connection (its key) stay out of the recorded inputs: only outputs are
  // marked secret by the resource. Diffs, updates and deletes read the recorded outputs.
  const inputs = inputsFromOutputs(outs);
  for (const property of SECRET_FIELD_PROPERTIES) delete inputs[property];
  delete inputs[CONNECTION_PROPERTY];
  return { id: String(n), props: outs, inputs };
}
