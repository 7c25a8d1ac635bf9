/**
 * What `notification-handlers export` makes of an account, as pure data: one resource per handler,
 * with a readable, stable resource name, the values a program must hold so that its first preview
 * shows no change, and a stack config key for every secret. No I/O; the project files are rendered
 * from the plan by `project-files.ts`.
 */
import {
  type FieldSpec,
  type HandlerType,
  fieldViolation,
  fieldsOf,
  isHandlerType,
  nameViolation,
} from "../sdk/client/domain/catalog";
import { equalAfterCleaning } from "../sdk/client/domain/cleaning";
import type { NotificationHandlerRecord as ApiHandler } from "../sdk/client/domain/resources/handler-parsing";

/** A type-specific value of an exported handler. */
type ExportedField =
  | { readonly spec: FieldSpec; readonly kind: "plain"; readonly value: string }
  /** A credential, read from stack config under `configKey`; its value never goes into a file. */
  | { readonly spec: FieldSpec; readonly kind: "secret"; readonly configKey: string };

/** One handler as a `NotificationHandler` resource. */
export interface ExportedHandler {
  readonly id: number;
  readonly type: HandlerType;
  /** The name as the API has it. */
  readonly name: string;
  /** The resource's name in the program (and in its URN). */
  readonly resourceName: string;
  /** The TypeScript variable that holds it. */
  readonly variable: string;
  readonly isEnabled: boolean;
  readonly fields: readonly ExportedField[];
}

/** A handler the export leaves out, and why. */
interface SkippedHandler {
  readonly id: number;
  readonly name: string;
  readonly reason: string;
}

/** A secret to put into the stack's encrypted config. */
interface SecretValue {
  readonly configKey: string;
  readonly handlerId: number;
  readonly property: string;
  readonly value: string;
}

/** The export of one account. */
export interface ExportPlan {
  readonly handlers: readonly ExportedHandler[];
  readonly skipped: readonly SkippedHandler[];
  /** Values the program will hold that the provider's checks refuse, one line each, no secret shown. */
  readonly warnings: readonly string[];
  /** Kept apart from the handlers so that nothing rendering files ever sees a secret value. */
  readonly secrets: readonly SecretValue[];
}

/** Longest resource name derived from a handler name (before a suffix that keeps it unique). */
const MAX_SLUG = 48;

// Identifiers the generated program declares itself, or that TypeScript reserves.
const TAKEN_IDENTIFIERS = new Set(
  (
    "config pulumi NotificationHandler handlerIds break case catch class const continue debugger default " +
    "delete do else enum export extends false finally for function if import in instanceof new null " +
    "return super switch this throw true try typeof var void while with as implements interface let " +
    "package private protected public static yield any boolean number string symbol type from of await"
  ).split(" "),
);

/** Builds the plan of an account's handlers, oldest first. */
export function planExport(handlers: readonly ApiHandler[]): ExportPlan {
  const sorted = [...handlers].sort((a, b) => a.id - b.id);
  const exportable: { handler: ApiHandler; type: HandlerType }[] = [];
  const skipped: SkippedHandler[] = [];
  for (const handler of sorted) {
    const { id, name, type } = handler;
    if (isHandlerType(type)) {
      exportable.push({ handler, type });
      continue;
    }
    const reason =
      type === null
        ? "it has no type (a defective update on the server wiped it); recreate it in the web UI"
        : `its type "${type}" is not one this package knows`;
    skipped.push({ id, name, reason });
  }

  const resourceNames = uniqueResourceNames(exportable);
  const variables = new Set<string>();
  const warnings: string[] = [];
  const secrets: SecretValue[] = [];
  const planned = exportable.map(({ handler, type }, index): ExportedHandler => {
    const resourceName = resourceNames[index]!;
    const label = `handler ${handler.id} (${JSON.stringify(handler.name)})`;
    const nameProblem = nameViolation(handler.name);
    if (nameProblem !== undefined) warnings.push(`${label}: name ${nameProblem}`);
    const fields = fieldsOf(type).map((spec): ExportedField => {
      const live = handler.settings[spec.field];
      if (live === undefined) {
        warnings.push(`${label}: the API returned no ${spec.property}; set it in the program`);
      }
      const value = programValue(spec, live ?? "");
      if (fieldViolation(spec, value) !== undefined) {
        warnings.push(
          `${label}: ${spec.property} ${fieldViolation(spec, value)}; correct it before \`pulumi up\``,
        );
      }
      if (!spec.secret) return { spec, kind: "plain", value };
      const configKey = `${resourceName}.${spec.property}`;
      secrets.push({ configKey, handlerId: handler.id, property: spec.property, value });
      return { spec, kind: "secret", configKey };
    });
    return {
      id: handler.id,
      type,
      name: handler.name,
      resourceName,
      variable: uniqueIdentifier(camelCase(resourceName), variables),
      // A pending email handler (is_enabled 2 on deployed instances) is enabled: it waits for a confirmation.
      isEnabled: handler.is_enabled,
      fields,
    };
  });
  return { handlers: planned, skipped, warnings, secrets };
}

/**
 * The value a program holds for a live value: the live value itself when the provider's check takes
 * it, else the spelling that passes the check and that the server cleans back into the live value.
 * A deployed instance stores `whatsapp` as an integer (docs/api.md#deployed-whatsapp-integer), so
 * `+15551234567` comes back as `15551234567`, which the E.164 check refuses; the program gets the `+`.
 */
export function programValue(spec: FieldSpec, live: string): string {
  if (fieldViolation(spec, live) === undefined) return live;
  const candidates = spec.rule === "phone" && /^\d+$/.test(live) ? [`+${live}`] : [];
  return (
    candidates.find(
      (c) => fieldViolation(spec, c) === undefined && equalAfterCleaning(spec.field, c, live),
    ) ?? live
  );
}

/**
 * Resource names from handler names: lowercase words joined by `-`; a name that several handlers
 * share gets each one's id, so every name is unique and stays the same on the next export.
 */
function uniqueResourceNames(handlers: readonly { handler: ApiHandler; type: HandlerType }[]): string[] {
  const slugs = handlers.map(({ handler, type }) => slugOf(handler.name) || type.replaceAll("_", "-"));
  const counts = new Map<string, number>();
  for (const slug of slugs) counts.set(slug, (counts.get(slug) ?? 0) + 1);
  const names = slugs.map((slug, i) => (counts.get(slug)! > 1 ? `${slug}-${handlers[i]!.handler.id}` : slug));
  // A suffixed name may still meet another handler's plain one ("ops" id 12 and a handler "ops 12").
  const used = new Set<string>();
  return names.map((name, i) => {
    let unique = name;
    for (let n = 2; used.has(unique); n++)
      unique = `${name}-${handlers[i]!.handler.id}${n === 2 ? "" : `-${n}`}`;
    used.add(unique);
    return unique;
  });
}

/** Lowercase ASCII words of a handler name, joined by `-`, HTML entities read as their characters. */
export function slugOf(name: string): string {
  const slug = decodeEntities(name)
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, MAX_SLUG).replace(/-+$/, "");
}

/**
 * The entities deployed instances write into values (docs/api.md#deployed-value-cleaning), and the
 * common named ones.
 */
function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]+);/gi, (entity, body: string) => {
    if (!body.startsWith("#")) return named[body.toLowerCase()] ?? entity;
    const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : Number(body.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

function camelCase(resourceName: string): string {
  const words = resourceName.split("-").filter((w) => w !== "");
  const joined = words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join("");
  return /^[0-9]/.test(joined) ? `handler${joined}` : joined;
}

function uniqueIdentifier(base: string, used: Set<string>): string {
  let name = base === "" ? "handler" : base;
  for (let n = 2; used.has(name) || TAKEN_IDENTIFIERS.has(name); n++) name = `${base}${n}`;
  used.add(name);
  return name;
}
