/**
 * Validation of the notification-handler requests: the create and update forms and the list query.
 *
 * Everything type-specific comes from the catalog, so a new type needs no change here. Each check
 * collects every problem it finds, so one answer names every offending field at once.
 */
import {
  ALL_FIELDS,
  DEFAULT_RESULTS_PER_PAGE,
  HANDLER_TYPE_NAMES,
  type HandlerType,
  LIST_ORDER_BY,
  LIST_ORDER_TYPES,
  RESULTS_PER_PAGE,
  fieldViolation,
  fieldsOf,
  isHandlerType,
  nameViolation,
  typeOfField,
} from "#shared";
import { isDatetime } from "../clock";
import { type Problem, TITLES } from "../errors";
import type { HandlerData, HandlerListFilter } from "../repository";

/** One part of a submitted form. `file` marks a file upload, which no field accepts. */
export interface FormEntry {
  readonly name: string;
  readonly value: string;
  readonly file: boolean;
}

/** The outcome of a validation: the parsed value, or every problem found. */
export type Validation<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** The fields a form may carry besides the type-specific ones. */
const COMMON_FIELDS = ["name", "type", "is_enabled"] as const;
const KNOWN_FIELDS: ReadonlySet<string> = new Set([...COMMON_FIELDS, ...ALL_FIELDS.map((f) => f.field)]);

function fieldProblem(parameter: string, reason: string): Problem {
  return { title: TITLES.invalidField, detail: `${parameter} ${reason}.`, parameter };
}

/** Parses the API's boolean spellings: `1`, `0`, `true`, `false` (any case, surrounding blanks ignored). */
export function parseBoolean(raw: string): boolean | undefined {
  switch (raw.trim().toLowerCase()) {
    case "1":
    case "true":
      return true;
    case "0":
    case "false":
      return false;
    default:
      return undefined;
  }
}

/** A form reduced to one value per known field, and the names already reported as wrong. */
interface CollectedFields {
  readonly fields: ReadonlyMap<string, string>;
  /** Reported names, so they are not also reported as missing. */
  readonly refused: ReadonlySet<string>;
}

/** Reduces a form to one value per known field, reporting unknown, file and repeated fields. */
function collectFields(entries: readonly FormEntry[], problems: Problem[]): CollectedFields {
  const fields = new Map<string, string>();
  const reported = new Set<string>();
  const report = (name: string, reason: string) => {
    if (reported.has(name)) return;
    reported.add(name);
    problems.push(fieldProblem(name, reason));
  };
  for (const entry of entries) {
    if (!KNOWN_FIELDS.has(entry.name)) report(entry.name, "is not a field of this API");
    else if (entry.file) report(entry.name, "must be a plain form field, not a file");
    else if (fields.has(entry.name)) report(entry.name, "must be sent only once");
    else fields.set(entry.name, entry.value);
  }
  // A repeated field is ambiguous: drop it rather than guess which value was meant.
  for (const name of reported) fields.delete(name);
  return { fields, refused: reported };
}

function checkName(raw: string, problems: Problem[]): string {
  const reason = nameViolation(raw);
  if (reason !== undefined) problems.push(fieldProblem("name", reason));
  return raw.trim();
}

function checkType(raw: string, problems: Problem[]): HandlerType | undefined {
  const value = raw.trim();
  if (isHandlerType(value)) return value;
  problems.push(fieldProblem("type", `must be one of: ${HANDLER_TYPE_NAMES.join(", ")}`));
  return undefined;
}

function checkEnabled(raw: string, problems: Problem[]): boolean | undefined {
  const value = parseBoolean(raw);
  if (value === undefined) problems.push(fieldProblem("is_enabled", "must be 1, 0, true or false"));
  return value;
}

/**
 * Checks the type-specific fields that were sent. `type` is the type they must belong to (undefined
 * when it is itself invalid); `required` demands every field of that type. Returns the trimmed values
 * in catalog order.
 */
function checkSettings(
  { fields, refused }: CollectedFields,
  type: HandlerType | undefined,
  required: boolean,
  foreignHint: (owner: HandlerType) => string,
  problems: Problem[],
): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [name, raw] of fields) {
    const owner = typeOfField(name);
    if (owner === undefined) continue; // a common field
    if (type !== undefined && owner !== type) {
      problems.push(fieldProblem(name, foreignHint(owner)));
      continue;
    }
    const spec = fieldsOf(owner).find((f) => f.field === name);
    const reason = spec === undefined ? undefined : fieldViolation(spec, raw);
    if (reason !== undefined) problems.push(fieldProblem(name, reason));
  }
  if (type === undefined) return settings;
  for (const spec of fieldsOf(type)) {
    const raw = fields.get(spec.field);
    if (raw !== undefined) settings[spec.field] = raw.trim();
    else if (required && !refused.has(spec.field))
      problems.push(fieldProblem(spec.field, `is required for type ${type}`));
  }
  return settings;
}

/** Validates a create form: name, type and every field of that type; `is_enabled` defaults to true. */
export function parseHandlerCreate(entries: readonly FormEntry[]): Validation<HandlerData> {
  const problems: Problem[] = [];
  const collected = collectFields(entries, problems);
  const { fields, refused } = collected;
  const rawName = fields.get("name");
  const rawType = fields.get("type");
  const rawEnabled = fields.get("is_enabled");
  if (rawName === undefined && !refused.has("name")) problems.push(fieldProblem("name", "is required"));
  if (rawType === undefined && !refused.has("type")) problems.push(fieldProblem("type", "is required"));
  const name = rawName === undefined ? "" : checkName(rawName, problems);
  const type = rawType === undefined ? undefined : checkType(rawType, problems);
  const isEnabled = rawEnabled === undefined ? true : checkEnabled(rawEnabled, problems);
  const settings = checkSettings(
    collected,
    type,
    true,
    (owner) => `belongs to type ${owner}, not ${type}`,
    problems,
  );
  if (problems.length > 0 || type === undefined || isEnabled === undefined) return { ok: false, problems };
  return { ok: true, value: { type, name, settings, isEnabled } };
}

/**
 * Validates an update form against the handler as it is and returns the handler as it will be.
 * Only what is sent changes. A different `type` switches the handler: the new type's fields are all
 * required and the old settings are dropped. Without a switch, the fields sent replace just their keys.
 */
export function parseHandlerUpdate(
  entries: readonly FormEntry[],
  current: HandlerData,
): Validation<HandlerData> {
  const problems: Problem[] = [];
  const collected = collectFields(entries, problems);
  const { fields } = collected;
  const rawName = fields.get("name");
  const rawType = fields.get("type");
  const rawEnabled = fields.get("is_enabled");
  const name = rawName === undefined ? current.name : checkName(rawName, problems);
  const isEnabled = rawEnabled === undefined ? current.isEnabled : checkEnabled(rawEnabled, problems);
  const sentType = rawType === undefined ? undefined : checkType(rawType, problems);
  const currentType = isHandlerType(current.type) ? current.type : undefined;
  const switching = sentType !== undefined && sentType !== current.type;
  // An invalid type leaves nothing to check membership against; the fields still get their own checks.
  const target = rawType === undefined ? currentType : sentType;
  const hint = switching
    ? (owner: HandlerType) => `belongs to type ${owner}, not ${target}`
    : (owner: HandlerType) =>
        `belongs to type ${owner}, not ${current.type}; send type=${owner} with all its fields to switch`;
  const sent = checkSettings(collected, target, switching, hint, problems);
  if (problems.length > 0 || isEnabled === undefined) return { ok: false, problems };
  const type = target ?? current.type;
  const settings = switching ? sent : { ...current.settings, ...sent };
  return { ok: true, value: { type, name, settings, isEnabled } };
}

/** The list's query parameters, in the order links repeat them. */
export const LIST_PARAMETERS = [
  "search",
  "search_by",
  "is_enabled",
  "type",
  "datetime_field",
  "datetime_start",
  "datetime_end",
  "order_by",
  "order_type",
  "results_per_page",
  "page",
] as const;
type ListParameter = (typeof LIST_PARAMETERS)[number];
const LIST_PARAMETER_SET: ReadonlySet<string> = new Set(LIST_PARAMETERS);

/** A validated list request. */
export interface HandlerListQuery extends HandlerListFilter {
  readonly page: number;
  readonly resultsPerPage: number;
  /** The parameters the request gave, except `page`, in canonical order, as links repeat them. */
  readonly linkParams: ReadonlyArray<readonly [string, string]>;
}

function queryProblem(parameter: string, reason: string): Problem {
  return { title: TITLES.invalidQuery, detail: `${parameter} ${reason}.`, parameter };
}

/** Parses a positive integer written in plain digits, up to 2^53 - 1. */
function positiveInteger(raw: string): number | undefined {
  if (!/^\d{1,16}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= 1 && Number.isSafeInteger(value) ? value : undefined;
}

/** Validates the list query: docs/api.md#list-parameters, each at most once, nothing else. */
export function parseListQuery(
  query: Readonly<Record<string, readonly string[]>>,
): Validation<HandlerListQuery> {
  const problems: Problem[] = [];
  const given = new Map<ListParameter, string>();
  for (const [name, values] of Object.entries(query)) {
    if (!LIST_PARAMETER_SET.has(name)) problems.push(queryProblem(name, "is not a parameter of this list"));
    else if (values.length !== 1) problems.push(queryProblem(name, "must be given only once"));
    else given.set(name as ListParameter, values[0] ?? "");
  }
  const check = <T>(
    name: ListParameter,
    parse: (raw: string) => T | undefined,
    reason: string,
  ): T | undefined => {
    const raw = given.get(name);
    if (raw === undefined) return undefined;
    const value = parse(raw);
    if (value === undefined) problems.push(queryProblem(name, reason));
    return value;
  };

  const search = given.get("search");
  check("search_by", (raw) => (raw === "name" ? raw : undefined), "must be name");
  const isEnabled = check("is_enabled", parseBoolean, "must be 1, 0, true or false");
  const type = check(
    "type",
    (raw) => (isHandlerType(raw) ? raw : undefined),
    `must be one of: ${HANDLER_TYPE_NAMES.join(", ")}`,
  );
  const datetimeField =
    check(
      "datetime_field",
      (raw) => (raw === "datetime" || raw === "last_datetime" ? raw : undefined),
      "must be datetime or last_datetime",
    ) ?? "datetime";
  const asDatetime = (raw: string) => (isDatetime(raw) ? raw : undefined);
  const datetimeStart = check("datetime_start", asDatetime, "must be a datetime in the form Y-m-d H:i:s");
  const datetimeEnd = check("datetime_end", asDatetime, "must be a datetime in the form Y-m-d H:i:s");
  const orderBy =
    check(
      "order_by",
      (raw) => LIST_ORDER_BY.find((o) => o === raw),
      `must be one of: ${LIST_ORDER_BY.join(", ")}`,
    ) ?? "notification_handler_id";
  const orderType =
    check(
      "order_type",
      (raw) => LIST_ORDER_TYPES.find((o) => o === raw.toUpperCase()),
      `must be ${LIST_ORDER_TYPES.join(" or ")}`,
    ) ?? "DESC";
  const page = check("page", positiveInteger, "must be an integer from 1") ?? 1;
  const resultsPerPage =
    check(
      "results_per_page",
      (raw) => RESULTS_PER_PAGE.find((n) => String(n) === raw),
      `must be one of: ${RESULTS_PER_PAGE.join(", ")}`,
    ) ?? DEFAULT_RESULTS_PER_PAGE;

  if (problems.length > 0) return { ok: false, problems };
  const linkParams = LIST_PARAMETERS.flatMap((name) => {
    const raw = given.get(name);
    return name === "page" || raw === undefined ? [] : [[name, raw] as const];
  });
  return {
    ok: true,
    value: {
      ...(search === undefined ? {} : { search }),
      ...(isEnabled === undefined ? {} : { isEnabled }),
      ...(type === undefined ? {} : { type }),
      datetimeField,
      ...(datetimeStart === undefined ? {} : { datetimeStart }),
      ...(datetimeEnd === undefined ? {} : { datetimeEnd }),
      orderBy,
      orderType,
      page,
      resultsPerPage,
      linkParams,
    },
  };
}
