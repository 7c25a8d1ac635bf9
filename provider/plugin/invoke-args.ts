/**
 * The arguments of the plugin's two functions, checked as they arrive from the engine (any program's
 * values): each failure names the argument and its rule.
 */
import { HANDLER_TYPE_NAMES, isHandlerType } from "../../sdk/client/domain/catalog";
import type { CheckFailure } from "../core/inputs";
import type { NotificationHandlerFilter, NotificationHandlerName } from "../core/handler-queries";
import type { PropertyValues } from "./properties";

/** Checked arguments, or what is wrong with them. */
export type Checked<T> = { ok: true; value: T } | { ok: false; failures: CheckFailure[] };

const TEXT_ARGUMENTS = ["name", "search"] as const;

/** The arguments of `getNotificationHandlers`: every one optional. */
export function filterArgs(args: PropertyValues): Checked<NotificationHandlerFilter> {
  const failures = unknownArguments(args, ["name", "search", "type", "isEnabled"]);
  const filter: NotificationHandlerFilter = {};
  for (const key of TEXT_ARGUMENTS) {
    const value = args[key];
    if (value === undefined || value === null) continue;
    if (typeof value === "string") filter[key] = value;
    else failures.push({ property: key, reason: "must be a string" });
  }
  const { type, isEnabled } = args;
  if (type !== undefined && type !== null) {
    if (isHandlerType(type)) filter.type = type;
    else failures.push(typeFailure(type));
  }
  if (isEnabled !== undefined && isEnabled !== null) {
    if (typeof isEnabled === "boolean") filter.isEnabled = isEnabled;
    else failures.push({ property: "isEnabled", reason: "must be a boolean" });
  }
  return failures.length > 0 ? { ok: false, failures } : { ok: true, value: filter };
}

/** The arguments of `getNotificationHandler`: a name, and optionally a type. */
export function nameArgs(args: PropertyValues): Checked<NotificationHandlerName> {
  const failures = unknownArguments(args, ["name", "type"]);
  const { name, type } = args;
  if (typeof name !== "string" || name === "") {
    failures.push({ property: "name", reason: "is required: the handler's name" });
  }
  if (type !== undefined && type !== null && !isHandlerType(type)) failures.push(typeFailure(type));
  if (failures.length > 0 || typeof name !== "string") return { ok: false, failures };
  return { ok: true, value: isHandlerType(type) ? { name, type } : { name } };
}

function unknownArguments(args: PropertyValues, known: readonly string[]): CheckFailure[] {
  return Object.keys(args)
    .filter((key) => !known.includes(key))
    .map((key) => ({ property: key, reason: `is not an argument (the arguments: ${known.join(", ")})` }));
}

function typeFailure(type: unknown): CheckFailure {
  return {
    property: "type",
    reason: `must be one of ${HANDLER_TYPE_NAMES.join(", ")} (got ${JSON.stringify(type)})`,
  };
}
