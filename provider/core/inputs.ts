/**
 * The provider's pure logic, no I/O: checking inputs against the catalog, turning inputs into API
 * parameters, comparing desired inputs with a live handler, and building the resource's outputs.
 */
import {
  ALL_FIELDS,
  HANDLER_TYPE_NAMES,
  type FieldSpec,
  fieldViolation,
  fieldsOf,
  isHandlerType,
  nameViolation,
  typeOfField,
} from "../../sdk/client/domain/catalog";
import { equalAfterCleaning } from "../../sdk/client/domain/cleaning";
import type { NotificationHandlerRecord as ApiHandler } from "../../sdk/client/domain/resources/handler-parsing";
import { SETTINGS, UPDATE_STRATEGIES, type UpdateStrategy } from "../../sdk/client/domain/settings";
import { type Difference, SHOWN_SECRET } from "./drift-note";

/** The resource's inputs as the provider receives them (secrets unwrapped, defaults not yet applied). */
export interface HandlerInputs {
  type?: unknown;
  name?: unknown;
  isEnabled?: unknown;
  adopt?: unknown;
  updateStrategy?: unknown;
  /** An explicit connection `{ baseUrl, apiKey }` (see `./connection`); the provider's configuration when absent. */
  connection?: unknown;
  [property: string]: unknown;
}

/** A handler as the API returns it, reduced to what the provider compares. */
export interface LiveHandler {
  handlerId: number;
  type: string | null;
  name: string;
  /** Type-specific settings; they may hold credentials, so wrap them with `pulumi.secret` before exporting. */
  settings: Record<string, string>;
  isEnabled: boolean;
  /** An email handler waiting for its address to be confirmed (deployed instances answer is_enabled 2). */
  pendingConfirmation: boolean;
  lastDatetime: string | null;
  datetime: string;
}

/** The provider's view of an API handler (the one place the API's field names are mapped). */
export function toLive(handler: ApiHandler): LiveHandler {
  return {
    handlerId: handler.id,
    type: handler.type,
    name: handler.name,
    settings: handler.settings,
    isEnabled: handler.is_enabled,
    pendingConfirmation: handler.is_pending,
    lastDatetime: handler.last_datetime,
    datetime: handler.datetime,
  };
}

/** The resource's outputs. */
export interface HandlerOutputs {
  [property: string]: unknown;
  handlerId: number;
  type: string;
  name: string;
  isEnabled: boolean;
  pendingConfirmation: boolean;
  settings: Record<string, string>;
  lastDatetime: string | null;
  datetime: string;
}

/** A failed check: the property and the rule it breaks. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Properties that are the provider's own and never sent to the API. */
const PROVIDER_PROPERTIES = new Set(["adopt", "updateStrategy", "connection"]);
/** Outputs the provider adds; a program never sets them. */
const OUTPUT_PROPERTIES = [
  "handlerId",
  "settings",
  "lastDatetime",
  "datetime",
  "pendingConfirmation",
] as const;
const KNOWN_PROPERTIES = new Set<string>([
  "type",
  "name",
  "isEnabled",
  ...PROVIDER_PROPERTIES,
  ...ALL_FIELDS.map((f) => f.property),
  ...OUTPUT_PROPERTIES,
]);

/**
 * The engine's value for an input not known until apply time (a preview of a computed value): both
 * providers hand it on as the engine encodes it, a string (a unit test holds it to `@pulumi/pulumi`'s own).
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether an input is given and known: neither absent nor the engine's unknown. */
const given = (value: unknown): boolean => value !== undefined && value !== UNKNOWN;

/**
 * Checks inputs against the catalog's rules; every failure names the property and the rule. A field
 * `mayBeAbsent` names is not required (one whose value is carried over from the live handler).
 */
export function checkInputs(
  inputs: HandlerInputs,
  mayBeAbsent: (property: string) => boolean = () => false,
): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string): void => {
    failures.push({ property, reason });
  };

  for (const property of Object.keys(inputs)) {
    if (property.startsWith("__")) continue; // a provider's hidden inputs and the engine's own keys
    if (!KNOWN_PROPERTIES.has(property)) fail(property, `is not a property of NotificationHandler`);
  }

  const type = inputs.type;
  if (type === undefined || type === null) {
    fail("type", `is required: one of ${HANDLER_TYPE_NAMES.join(", ")}`);
  } else if (type !== UNKNOWN && !isHandlerType(type)) {
    fail("type", `must be one of ${HANDLER_TYPE_NAMES.join(", ")} (got ${JSON.stringify(type)})`);
  }

  const name = inputs.name;
  if (typeof name === "string") {
    const violation = nameViolation(name);
    if (violation !== undefined) fail("name", violation);
  } else if (given(name)) {
    fail("name", "must be a string");
  }

  if (given(inputs.isEnabled) && typeof inputs.isEnabled !== "boolean")
    fail("isEnabled", "must be a boolean");

  const adopt = inputs.adopt;
  const adoptsId = typeof adopt === "number" && Number.isSafeInteger(adopt) && adopt > 0;
  if (given(adopt) && typeof adopt !== "boolean" && !adoptsId)
    fail("adopt", "must be true, false or the positive integer id of the handler to take over");

  const strategy = inputs.updateStrategy;
  if (given(strategy) && !UPDATE_STRATEGIES.includes(strategy as UpdateStrategy))
    fail("updateStrategy", `must be ${SETTINGS.updateStrategy.rule.description}`);

  if (isHandlerType(type)) {
    const own = new Set(fieldsOf(type).map((f) => f.property));
    for (const spec of fieldsOf(type)) {
      const value = inputs[spec.property];
      if (value === undefined || value === null) {
        if (!mayBeAbsent(spec.property)) fail(spec.property, `is required for type ${type}`);
      } else if (value === UNKNOWN) {
        continue;
      } else if (typeof value !== "string") {
        fail(spec.property, "must be a string");
      } else {
        const violation = fieldViolation(spec, value);
        if (violation !== undefined) fail(spec.property, violation);
      }
    }
    for (const spec of ALL_FIELDS) {
      if (own.has(spec.property) || inputs[spec.property] === undefined) continue;
      fail(spec.property, `belongs to type ${typeOfField(spec.field)}, not ${type}`);
    }
  }
  return failures;
}

/** The desired values of the API's fields, from checked inputs: name, is_enabled and the type's fields. */
export interface Desired {
  type: string;
  name: string;
  isEnabled: boolean;
  /** Form field name to value, for the fields of `type`. */
  fields: Record<string, string>;
}

/** Reads the desired API state from checked inputs. */
export function desiredFrom(inputs: HandlerInputs): Desired {
  const type = String(inputs.type);
  const fields: Record<string, string> = {};
  for (const spec of fieldsOf(type)) {
    const value = inputs[spec.property];
    if (typeof value === "string") fields[spec.field] = value;
  }
  return {
    type,
    name: String(inputs.name),
    isEnabled: inputs.isEnabled === undefined ? true : inputs.isEnabled === true,
    fields,
  };
}

/**
 * The desired state with each property the program leaves to others (`ignoreChanges`) at its live
 * value: what a diff compares and a write sends, so nothing puts back a value changed outside the code.
 */
export function withLiveValues(
  desired: Desired,
  live: LiveHandler | undefined,
  ignored: (property: string) => boolean,
): Desired {
  if (live === undefined) return desired;
  const kept: Desired = { ...desired, fields: { ...desired.fields } };
  if (ignored("name")) kept.name = live.name;
  if (ignored("isEnabled")) kept.isEnabled = live.isEnabled;
  if (live.type !== desired.type) return kept;
  for (const spec of fieldsOf(desired.type)) {
    const have = live.settings[spec.field];
    if (have !== undefined && ignored(spec.property)) kept.fields[spec.field] = have;
  }
  return kept;
}

/** The form parameters that bring a handler to the desired state (type and every field always sent). */
export function apiParams(desired: Desired): Record<string, string | boolean> {
  return { name: desired.name, type: desired.type, is_enabled: desired.isEnabled, ...desired.fields };
}

const shown = (spec: FieldSpec | undefined, value: string | undefined): string =>
  value === undefined ? "(missing)" : spec?.secret === true ? SHOWN_SECRET : JSON.stringify(value);

/**
 * What differs between the desired state and the live handler, comparing through the cleaning that
 * deployed instances apply (docs/api.md#deployed-value-cleaning), so a value the server rewrote never
 * shows as a change.
 */
export function differences(desired: Desired, live: LiveHandler): Difference[] {
  const found: Difference[] = [];
  if (live.type !== desired.type) {
    found.push({ property: "type", live: JSON.stringify(live.type), desired: JSON.stringify(desired.type) });
  }
  if (!equalAfterCleaning("name", desired.name, live.name)) {
    found.push({ property: "name", live: JSON.stringify(live.name), desired: JSON.stringify(desired.name) });
  }
  // A pending email handler (is_enabled 2) is enabled: it only waits for the address to be confirmed.
  if (live.isEnabled !== desired.isEnabled) {
    found.push({ property: "isEnabled", live: String(live.isEnabled), desired: String(desired.isEnabled) });
  }
  for (const spec of fieldsOf(desired.type)) {
    const want = desired.fields[spec.field] ?? "";
    const have = live.settings[spec.field];
    if (have === undefined || !equalAfterCleaning(spec.field, want, have)) {
      found.push({ property: spec.property, live: shown(spec, have), desired: shown(spec, want) });
    }
  }
  return found;
}

/** The API-relevant properties whose desired values changed between two sets of inputs. */
export function changedInputs(olds: HandlerInputs, news: HandlerInputs): string[] {
  const a = desiredFrom(olds);
  const b = desiredFrom(news);
  const changed: string[] = [];
  if (a.type !== b.type) changed.push("type");
  if (a.name !== b.name) changed.push("name");
  if (a.isEnabled !== b.isEnabled) changed.push("isEnabled");
  for (const spec of fieldsOf(b.type)) {
    if (a.fields[spec.field] !== b.fields[spec.field]) changed.push(spec.property);
  }
  return changed;
}

/**
 * The resource's outputs: the checked inputs (as the program wrote them, or as `desired` has them where
 * it kept a live value) plus what the API reports.
 */
export function outputsFrom(
  inputs: HandlerInputs,
  live: LiveHandler,
  desired: Desired = desiredFrom(inputs),
): HandlerOutputs {
  const outs: HandlerOutputs = {
    ...withoutEngineKeys(inputs),
    handlerId: live.handlerId,
    type: desired.type,
    name: desired.name,
    isEnabled: desired.isEnabled,
    pendingConfirmation: live.pendingConfirmation,
    settings: { ...live.settings },
    lastDatetime: live.lastDatetime,
    datetime: live.datetime,
  };
  for (const spec of fieldsOf(desired.type)) {
    const value = desired.fields[spec.field];
    if (value !== undefined) outs[spec.property] = value;
  }
  return outs;
}

/**
 * Outputs after a refresh: live values replace recorded ones wherever they really differ (a value that
 * differs only by the server's cleaning keeps the program's spelling, so it never shows as a change).
 */
export function refreshedOutputs(recorded: HandlerInputs, live: LiveHandler): HandlerOutputs {
  const type = live.type ?? String(recorded.type);
  const refreshed: HandlerInputs = { ...withoutEngineKeys(recorded), type };
  if (typeof recorded.name !== "string" || !equalAfterCleaning("name", recorded.name, live.name)) {
    refreshed.name = live.name;
  }
  refreshed.isEnabled = live.isEnabled;
  for (const spec of ALL_FIELDS) delete refreshed[spec.property];
  for (const spec of fieldsOf(type)) {
    const old = recorded[spec.property];
    const have = live.settings[spec.field];
    if (have === undefined) continue;
    refreshed[spec.property] =
      typeof old === "string" && equalAfterCleaning(spec.field, old, have) ? old : have;
  }
  const outs = outputsFrom(refreshed, live);
  outs.type = type;
  return outs;
}

/**
 * The inputs to record after a refresh: the refreshed outputs less what the provider computes and
 * keeps for itself (`__` properties).
 */
export function inputsFromOutputs(outputs: HandlerOutputs): HandlerInputs {
  return withoutEngineKeys(outputs);
}

function withoutEngineKeys(inputs: HandlerInputs): HandlerInputs {
  const copy: HandlerInputs = {};
  for (const [key, value] of Object.entries(inputs)) {
    if (!key.startsWith("__") && !(OUTPUT_PROPERTIES as readonly string[]).includes(key)) copy[key] = value;
  }
  return copy;
}
