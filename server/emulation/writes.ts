/**
 * How deployed instances read create and update forms and what they store (docs/api.md#deployed,
 * "Writes" and "Reads"; the choices of docs/api.md#emulation-forms and docs/api.md#emulation-validation).
 *
 * Deployed instances are PHP: they read `$_POST` (the last value of each field; file parts are not
 * fields; names they do not use are ignored), clean every value before storing it (sdk/client/domain/cleaning.ts,
 * so the stored value is the one reads return), and cut values that are too long instead of
 * refusing them. What still fails, as a 401 with the version's validation title: a missing or empty
 * (after cleaning) `name`, `type` or field of the type, and a field value that breaks its format rule
 * from the catalog (checked on the trimmed value as sent, without the length limit). An unknown or
 * disabled type, and a user at the plan's handler limit, are the 401 plan-limit answer.
 */
import { randomBytes } from "node:crypto";
import { type HandlerType, cleanLikeDeployed, fieldsOf, isHandlerType, ruleViolation } from "#shared";
import { ApiError, type Problem, TITLES } from "../errors";
import type { HandlerData, HandlerListFilter, HandlerRecord, Repository } from "../repository";
import type { HandlerRules } from "../routes/notification-handlers";
import type { FormEntry } from "../schemas/notification-handlers";
import { planLimitExceeded } from "./errors";
import { deployedListQuery } from "./lists";
import type { EmulatedVersion } from "./versions";

/** What a deployed site is configured with, beyond its version. */
export interface SiteOptions {
  /** Types the site's administrator switched off: creating one is docs/api.md#deployed-plan-limit-401. */
  readonly disabledTypes?: ReadonlySet<string>;
  /** The most handlers a user's plan allows; creating one more is docs/api.md#deployed-plan-limit-401. */
  readonly planLimit?: number;
}

/** The damaged settings a 2026 update stores (docs/api.md#deployed-2026-update-wipes-type). */
const DAMAGED_SETTINGS: Readonly<Record<string, string>> = { "": "" };

/** A form as PHP's `$_POST` holds it: one value per field, the last one sent; file parts are not there. */
function postFields(entries: readonly FormEntry[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (const entry of entries) if (!entry.file) fields.set(entry.name, entry.value);
  return fields;
}

/**
 * PHP's `(int)` of a form value, as deployed instances read `is_enabled`: leading blanks, a sign and
 * digits, anything else 0, so `true` reads as 0 (docs/api.md#deployed-is-enabled-form).
 */
function phpIntIsTruthy(raw: string): boolean {
  const match = /^[ \t\n\r\v\f]*[+-]?0*([1-9])?/.exec(raw);
  return match?.[1] !== undefined;
}

/** A fresh email confirmation code (2026 create answers show it: docs/api.md#deployed-create-answer). */
function newActivationCode(): string {
  return randomBytes(16).toString("hex");
}

/** One refused field, for the log: the answer itself names none (see errors.ts). */
function missing(parameter: string): Problem {
  return { title: TITLES.invalidField, detail: `${parameter} is missing, empty or invalid.`, parameter };
}

/**
 * Reads the fields of `type` from the form: cleaned, required unless `keep` has them, and checked
 * against the catalog's rule. Fields of other types are ignored, as PHP never reads them.
 */
function readSettings(
  post: ReadonlyMap<string, string>,
  type: HandlerType,
  keep: Readonly<Record<string, string>> | undefined,
  problems: Problem[],
): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const spec of fieldsOf(type)) {
    const raw = post.get(spec.field);
    const kept = keep?.[spec.field];
    if (raw === undefined && kept !== undefined) {
      settings[spec.field] = kept;
      continue;
    }
    const cleaned = raw === undefined ? "" : cleanLikeDeployed(spec.field, raw);
    if (raw === undefined || cleaned === "" || ruleViolation(spec.rule, raw.trim()) !== undefined) {
      problems.push(missing(spec.field));
    }
    settings[spec.field] = cleaned;
  }
  return settings;
}

/** The type sent, if any; an unknown or switched-off one is the plan-limit 401. */
function readType(raw: string | undefined, site: SiteOptions): HandlerType | undefined {
  const type = raw?.trim() ?? "";
  if (type === "") return undefined;
  if (!isHandlerType(type) || site.disabledTypes?.has(type) === true) throw planLimitExceeded();
  return type;
}

const COUNT_ALL: HandlerListFilter = {
  datetimeField: "datetime",
  orderBy: "notification_handler_id",
  orderType: "DESC",
};

/** Reads a create form the way every deployed version does. */
async function readCreate(
  form: readonly FormEntry[],
  userId: number,
  repository: Repository,
  site: SiteOptions,
): Promise<HandlerData> {
  const post = postFields(form);
  const name = cleanLikeDeployed("name", post.get("name") ?? "");
  const rawType = post.get("type")?.trim() ?? "";
  // Required fields first, then the type, then the plan, then the type's own fields.
  if (name === "" || rawType === "") throw ApiError.badRequest([missing(name === "" ? "name" : "type")]);
  const type = readType(rawType, site);
  if (type === undefined) throw ApiError.badRequest([missing("type")]);
  if (site.planLimit !== undefined) {
    const count = (await repository.listHandlers(userId, COUNT_ALL, 0, 0)).total;
    if (count >= site.planLimit) throw planLimitExceeded();
  }
  const problems: Problem[] = [];
  const settings = readSettings(post, type, undefined, problems);
  if (problems.length > 0) throw ApiError.badRequest(problems);
  const rawEnabled = post.get("is_enabled");
  return {
    type,
    name,
    settings,
    isEnabled: rawEnabled === undefined ? true : phpIntIsTruthy(rawEnabled),
    // A new address waits for confirmation; there is no confirm endpoint, so it waits for good.
    activationCode: type === "email" ? newActivationCode() : null,
  };
}

/**
 * Reads an update form as 2023 does (a working update; 2025 and 2026 check the same way before
 * their defect): only what is sent changes, a new type needs all its fields, a new email address
 * needs confirming again.
 */
function readUpdate(form: readonly FormEntry[], current: HandlerRecord, site: SiteOptions): HandlerData {
  const post = postFields(form);
  const problems: Problem[] = [];
  const rawName = post.get("name");
  const name = rawName === undefined ? current.name : cleanLikeDeployed("name", rawName);
  if (name === "") problems.push(missing("name"));
  const rawEnabled = post.get("is_enabled");
  const isEnabled = rawEnabled === undefined ? current.isEnabled : phpIntIsTruthy(rawEnabled);
  const sentType = readType(post.get("type"), site);
  const switching = sentType !== undefined && sentType !== current.type;
  const type = sentType ?? current.type;
  const settings =
    type !== null && isHandlerType(type)
      ? readSettings(post, type, switching ? undefined : current.settings, problems)
      : { ...current.settings };
  if (problems.length > 0) throw ApiError.badRequest(problems);
  const addressChanged = type === "email" && (switching || settings["email"] !== current.settings["email"]);
  return {
    type,
    name,
    settings,
    isEnabled,
    ...(type !== "email"
      ? { activationCode: null }
      : addressChanged
        ? { activationCode: newActivationCode() }
        : {}),
  };
}

/** The create, update and list rules of `version`. */
export function deployedRules(
  version: EmulatedVersion,
  repository: Repository,
  site: SiteOptions,
): HandlerRules {
  return {
    create: (form, userId) => readCreate(form, userId, repository, site),
    update: (form, current) => {
      const next = readUpdate(form, current, site);
      switch (version) {
        case "2023":
          return next;
        case "2025":
          // docs/api.md#deployed-2025-update-saves-nothing (last_datetime included).
          return undefined;
        case "2026":
          // docs/api.md#deployed-2026-update-wipes-type: only `name` and `is_enabled` survive. With
          // no type left, no address waits for confirmation.
          return {
            type: null,
            name: next.name,
            settings: DAMAGED_SETTINGS,
            isEnabled: next.isEnabled,
            activationCode: null,
          };
      }
    },
    list: (query) => deployedListQuery(version, query),
  };
}
