/**
 * The dynamic provider's implementation. It runs only inside Pulumi's dynamic-provider process, loaded
 * by package name from the shim in `./provider`; its module state (the client and the account
 * snapshot) lives for that process and is never serialized.
 *
 * Request budget (deployed instances allow 60 requests a minute): diffs and refreshes read the whole
 * account once per process, 1000 handlers per list request, and the snapshot follows the provider's own
 * writes; each create, update or delete costs one write and one read that verifies it.
 */
import type * as pulumi from "@pulumi/pulumi";

import { NotificationHandlersClient } from "../sdk";
import { CreateOutcomeUnknownError, NotFoundError } from "../sdk/errors";
import { ALL_FIELDS } from "../sdk/catalog";
import { equalAfterCleaning } from "../sdk/cleaning";
import {
  type Desired,
  type Difference,
  type HandlerInputs,
  type HandlerOutputs,
  type LiveHandler,
  type UpdateStrategy,
  UNKNOWN,
  apiParams,
  changedInputs,
  checkInputs,
  describeDifferences,
  desiredFrom,
  differences,
  inputsFromOutputs,
  outputsFrom,
  refreshedOutputs,
  toLive,
} from "./inputs";
import { type Connection, type ProviderSettings, readSettings, requireConnection } from "./config";

const LIST_PAGE_SIZE = 1000; // the largest page the API allows

/** Inputs that decide what is sent to the API. */
const API_PROPERTIES = ["type", "name", "isEnabled", "updateStrategy", ...ALL_FIELDS.map((f) => f.property)];

const state: {
  settings: ProviderSettings;
  client: NotificationHandlersClient | undefined;
  snapshot: Promise<Map<number, LiveHandler>> | undefined;
  /** Handlers that a resource of this process manages: never adopted or recovered by another. */
  claimed: Set<number>;
  /**
   * The inputs of resources this process's diffs decided to replace (or found gone). The engine
   * checks and creates a replacement like a new resource; adoption is for the first create only, so
   * a create with these inputs makes a new handler whatever `adopt` says.
   */
  replacements: Set<string>;
} = {
  settings: readSettings(() => undefined),
  client: undefined,
  snapshot: undefined,
  claimed: new Set(),
  replacements: new Set(),
};

/** Identifies a resource's inputs across diff and create (the engine gives create no URN). */
function inputsKey(inputs: HandlerInputs): string {
  return JSON.stringify([desiredFrom(inputs), inputs.adopt ?? null]);
}

/** Diagnostics go to stderr, which the engine shows under the stack's diagnostics. */
function note(message: string): void {
  process.stderr.write(`notification-handlers: ${message}\n`);
}

const PACING_NOTE_EVERY_MS = 10_000; // 10 s
let lastPacingNote = 0;

function notePacing(): void {
  const now = Date.now();
  if (now - lastPacingNote < PACING_NOTE_EVERY_MS || state.client === undefined) return;
  lastPacingNote = now;
  const { requests, pacedMs } = state.client.stats;
  note(
    `pacing requests to the server's rate limit: ${requests} requests so far, ` +
      `${Math.round(pacedMs / 1000)} s of waiting in total (summed over concurrent requests)`,
  );
}

/** Reads the provider configuration, falling back to the environment. */
export function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  // A bad value throws inside the executor, which rejects.
  return new Promise((resolve) => {
    state.settings = readSettings((key) => req.config.get(key));
    resolve();
  });
}

/** Fails with instructions when the API key or the base URL is not configured. */
function requireSettings(): Connection {
  return requireConnection(state.settings);
}

function client(): NotificationHandlersClient {
  if (state.client === undefined) {
    const { baseUrl, apiKey } = requireSettings();
    state.client = new NotificationHandlersClient({
      baseURL: baseUrl,
      apiKey,
      maxRetries: 4,
      logger: {
        // Pacing waits come one per request; a summary every few seconds is enough to follow.
        info: () => notePacing(),
        warn: (message: string) => note(message),
        error: (message: string) => note(message),
      },
    });
  }
  return state.client;
}

/** Every handler of the account, read once per process (ceil(N/1000) list requests). */
function snapshot(): Promise<Map<number, LiveHandler>> {
  state.snapshot ??= (async () => {
    const all = new Map<number, LiveHandler>();
    for await (const handler of client().notificationHandlers.list({
      results_per_page: LIST_PAGE_SIZE,
      order_by: "notification_handler_id",
      order_type: "ASC",
    })) {
      all.set(handler.id, toLive(handler));
    }
    return all;
  })();
  // A failed read is not cached: the next call tries again.
  state.snapshot.catch(() => {
    state.snapshot = undefined;
  });
  return state.snapshot;
}

/** Keeps the snapshot in step with the provider's own writes. */
async function remember(live: LiveHandler): Promise<void> {
  if (state.snapshot !== undefined)
    (await state.snapshot.catch(() => new Map<number, LiveHandler>())).set(live.id, live);
}

async function forget(id: number): Promise<void> {
  if (state.snapshot !== undefined)
    (await state.snapshot.catch(() => new Map<number, LiveHandler>())).delete(id);
}

/** One handler by id: from the snapshot, or read when the snapshot does not have it. */
async function liveById(id: number): Promise<LiveHandler | undefined> {
  const known = (await snapshot()).get(id);
  if (known !== undefined) return known;
  return readHandler(id);
}

/** Reads one handler; undefined when the API says it does not exist. */
async function readHandler(id: number): Promise<LiveHandler | undefined> {
  try {
    return toLive(await client().notificationHandlers.retrieve(id));
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

function handlerId(id: pulumi.ID): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`"${id}" is not a notification handler id`);
  return n;
}

function strategyOf(inputs: HandlerInputs): UpdateStrategy {
  return (inputs.updateStrategy as UpdateStrategy | undefined) ?? state.settings.updateStrategy;
}

/** Checks inputs against the catalog before any API call. */
export function check(_olds: HandlerInputs, news: HandlerInputs): Promise<pulumi.dynamic.CheckResult> {
  requireSettings();
  const failures = checkInputs(news);
  return Promise.resolve({ inputs: news, failures });
}

/** Compares the desired inputs with the handler's live state, so drift shows up without `--refresh`. */
export async function diff(
  id: pulumi.ID,
  olds: HandlerInputs,
  news: HandlerInputs,
): Promise<pulumi.dynamic.DiffResult> {
  const n = handlerId(id);
  state.claimed.add(n); // managed by this resource: no other resource may adopt it
  const live = await liveById(n);
  if (live === undefined) {
    note(`handler ${n} (${JSON.stringify(olds.name)}) no longer exists in the API; it will be created again`);
    state.replacements.add(inputsKey(news));
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
  note(
    `handler ${n} (${JSON.stringify(desired.name)}) differs from the program:\n${describeDifferences(drift)}`,
  );
  const replace = changed.includes("type") || strategyOf(news) === "replace";
  if (replace) state.replacements.add(inputsKey(news));
  return { changes: true, replaces: replace ? changed : [], deleteBeforeReplace: false };
}

/** Creates the handler (or takes one over with `adopt`), verified by reading it back. */
export async function create(inputs: HandlerInputs): Promise<pulumi.dynamic.CreateResult> {
  const desired = desiredFrom(inputs);
  const adopted = await adoptable(inputs, desired);
  let live: LiveHandler;
  if (adopted === undefined) {
    live = await createHandler(desired, inputs);
  } else if (differences(desired, adopted).length === 0) {
    live = adopted;
  } else if (strategyOf(inputs) === "replace") {
    live = await createHandler(desired, inputs);
    await recordOnFailure(live, inputs, () => deleteHandler(adopted.id));
  } else {
    live = await updateHandler(adopted, desired, inputs);
  }
  return { id: String(live.id), outs: outputsFrom(inputs, live) };
}

/** The existing handler `adopt` names, or undefined when a new one is to be created. */
async function adoptable(inputs: HandlerInputs, desired: Desired): Promise<LiveHandler | undefined> {
  const adopt = inputs.adopt;
  if (adopt === undefined || adopt === false || state.replacements.has(inputsKey(inputs))) return undefined;
  if (typeof adopt === "number") {
    if (state.claimed.has(adopt))
      throw new Error(`adopt: handler ${adopt} is already managed by another resource`);
    state.claimed.add(adopt);
    const live = await readHandler(adopt);
    if (live === undefined)
      throw new Error(`adopt: handler ${adopt} does not exist (or belongs to another account)`);
    note(`taking over handler ${adopt} (${JSON.stringify(live.name)})`);
    return live;
  }
  // Sorted here: 2025 instances ignore the list order.
  const matches = [...(await snapshot()).values()]
    .filter(
      (h) =>
        h.type === desired.type &&
        equalAfterCleaning("name", desired.name, h.name) &&
        !state.claimed.has(h.id),
    )
    .sort((a, b) => a.id - b.id);
  if (matches.length > 1) {
    throw new Error(
      `adopt: ${matches.length} handlers are named ${JSON.stringify(desired.name)} with type ${desired.type} ` +
        `(ids ${matches.map((h) => h.id).join(", ")}); set adopt to the id of the one to take over`,
    );
  }
  const [match] = matches;
  if (match !== undefined) {
    state.claimed.add(match.id);
    note(`taking over handler ${match.id} (${JSON.stringify(match.name)})`);
  }
  return match;
}

/**
 * Creates a handler and reads it back; a create whose outcome is unknown finds what it made. Once the
 * handler exists, every failure is a partial failure that records it, so nothing is left orphaned.
 */
async function createHandler(desired: Desired, inputs: HandlerInputs): Promise<LiveHandler> {
  const params = apiParams(desired);
  let id: number;
  try {
    id = (await client().notificationHandlers.create(params as never)).id;
  } catch (error) {
    if (!(error instanceof CreateOutcomeUnknownError)) throw error;
    const made = await findCreated(desired);
    if (made !== undefined) {
      note(
        `the connection failed after the create was sent; found the handler it made (${made.id}) and took it over`,
      );
      await remember(made);
      return made;
    }
    note("the connection failed after the create was sent and no handler was made; creating it again");
    id = (await client().notificationHandlers.create(params as never)).id;
  }
  state.claimed.add(id);
  const sent: LiveHandler = {
    id,
    type: desired.type,
    name: desired.name,
    settings: desired.fields,
    isEnabled: desired.isEnabled,
    isPending: false,
    lastDatetime: null,
    datetime: "",
  };
  const live = await recordOnFailure(sent, inputs, () => readHandler(id));
  if (live === undefined) throw new Error(`handler ${id} was created, but reading it back answered 404`);
  const wrong = differences(desired, live);
  if (wrong.length > 0) {
    // Leave nothing half-made: a handler that does not match the program is removed again; if even
    // that fails, the state records it so the next run can put it right or delete it.
    await recordOnFailure(live, inputs, () => deleteHandler(id));
    throw new Error(
      `the server created handler ${id} with other values than were sent, so it was deleted again:\n${describeDifferences(wrong)}`,
    );
  }
  await remember(live);
  return live;
}

/**
 * Runs a step after a handler exists; if the step fails, fails with an error that makes the engine
 * record the handler (a partial failure) instead of forgetting it.
 */
async function recordOnFailure<T>(
  live: LiveHandler,
  inputs: HandlerInputs,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const message = `handler ${live.id} exists, but ${error instanceof Error ? error.message : String(error)}`;
    const properties = { ...outputsFrom(inputs, live), __provider: inputs.__provider };
    throw Object.assign(new Error(message), { id: String(live.id), properties, reasons: [message] });
  }
}

/** After a create of unknown outcome: the newest unclaimed handler that matches what was sent. */
async function findCreated(desired: Desired): Promise<LiveHandler | undefined> {
  const known = state.snapshot === undefined ? new Set<number>() : new Set((await snapshot()).keys());
  // Every handler, compared here rather than searched for: deployed instances search the stored
  // (cleaned) name, and 2025 ignores filters and order altogether. A rare path, so it reads it all.
  const candidates: LiveHandler[] = [];
  for await (const handler of client().notificationHandlers.list({
    order_by: "notification_handler_id",
    order_type: "DESC",
    results_per_page: LIST_PAGE_SIZE,
  })) {
    const h = toLive(handler);
    if (!known.has(h.id) && !state.claimed.has(h.id) && differences(desired, h).length === 0)
      candidates.push(h);
  }
  candidates.sort((a, b) => b.id - a.id);
  const found = candidates[0];
  // Claimed before any other await, so two recoveries running side by side never take the same one.
  if (found !== undefined) state.claimed.add(found.id);
  return found;
}

/** Updates a handler, reads it back, and fails plainly if the server did not apply the update. */
async function updateHandler(
  before: LiveHandler,
  desired: Desired,
  inputs: HandlerInputs,
): Promise<LiveHandler> {
  await client().notificationHandlers.update(before.id, apiParams(desired));
  const live = await readHandler(before.id);
  if (live === undefined) throw new Error(`handler ${before.id} disappeared while it was being updated`);
  await remember(live);
  const wrong = differences(desired, live);
  if (wrong.length > 0) throw updateFailure(before, live, wrong, inputs);
  return live;
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
    `updating handler ${before.id} (${JSON.stringify(desiredFrom(inputs).name)}) failed: the server ${what}.\n` +
    `${describeDifferences(wrong)}\n` +
    'Way out: set `updateStrategy: "replace"` on this resource, or for all of them with ' +
    "`pulumi config set notification-handlers:updateStrategy replace`; changes then create a new handler " +
    "and delete the old one. The state now records the handler as the server has it.";
  // An error carrying id and properties makes the engine record the handler as it now is
  // (a partial failure), so the state never disagrees with the API.
  const properties = { ...refreshedOutputs(inputs, live), type: live.type, __provider: inputs.__provider };
  return Object.assign(new Error(message), { id: String(before.id), properties, reasons: [message] });
}

function sameState(a: LiveHandler, b: LiveHandler): boolean {
  return (
    a.type === b.type &&
    a.name === b.name &&
    a.isEnabled === b.isEnabled &&
    JSON.stringify(a.settings) === JSON.stringify(b.settings)
  );
}

/** Brings the handler to the new inputs in place (the engine calls this only for in-place changes). */
export async function update(
  id: pulumi.ID,
  olds: HandlerOutputs | HandlerInputs,
  news: HandlerInputs,
): Promise<pulumi.dynamic.UpdateResult> {
  const n = handlerId(id);
  const desired = desiredFrom(news);
  const before = await liveById(n);
  if (before === undefined)
    throw new Error(
      `handler ${n} (${JSON.stringify(olds.name)}) no longer exists; run \`pulumi up\` again to create it`,
    );
  const live =
    differences(desired, before).length === 0 ? before : await updateHandler(before, desired, news);
  return { outs: outputsFrom(news, live) };
}

/** Deletes a handler and verifies it is gone; a handler already gone is fine. */
async function deleteHandler(id: number): Promise<void> {
  try {
    await client().notificationHandlers.delete(id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  if ((await readHandler(id)) !== undefined) {
    throw new Error(`the server answered the delete of handler ${id}, but the handler still exists`);
  }
  await forget(id);
}

/** Deletes the handler (`delete` is a reserved word, hence the name). */
export async function remove(id: pulumi.ID, _props: HandlerOutputs): Promise<void> {
  await deleteHandler(handlerId(id));
}

/** Reads the live handler for `pulumi refresh` and `NotificationHandler.get`; gone means no id. */
export async function read(
  id: pulumi.ID,
  props?: HandlerOutputs | HandlerInputs,
): Promise<pulumi.dynamic.ReadResult> {
  const n = handlerId(id);
  state.claimed.add(n);
  const live = await liveById(n);
  if (live === undefined) return {};
  const outs = refreshedOutputs(props ?? {}, live);
  // Secret fields stay out of the recorded inputs: only outputs are marked secret by the resource.
  const inputs = inputsFromOutputs(outs);
  for (const spec of ALL_FIELDS) if (spec.secret) delete inputs[spec.property];
  return { id: String(n), props: outs, inputs };
}
