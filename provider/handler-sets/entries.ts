/**
 * A handler set from what a program gives (files or data) to checked entries, their secrets read from
 * the stack's config, and each entry's handler inputs. Shared by both providers, the `HandlerSet`
 * component of TypeScript programs and the plugin's `Construct` (docs/handler-sets.md), so a set is
 * checked one way whatever the program's language. No Pulumi here: the config arrives as a lookup.
 */
import { fieldByProperty, fieldViolation } from "../../sdk/client/domain/catalog";
import { readSetData, readSetFiles, type SetEntry, type SetProblem, type SetReading } from "./format";
import { matchFiles, readSetSources } from "./sources";

/** What a set is made from: YAML files (patterns relative to the program's folder), or data. */
export interface HandlerSetSources {
  readonly files?: readonly string[] | undefined;
  readonly handlers?: unknown;
}

/** The label a set given as data has in problems, for lack of a file. */
export const DATA_LABEL = "handlers";

/**
 * The set's entries and every problem of every file, or why the sources themselves are refused
 * (both or neither given).
 */
export function readHandlerSet(sources: HandlerSetSources, cwd: string): SetReading | { refused: string } {
  if ((sources.files === undefined) === (sources.handlers === undefined)) {
    return {
      refused: "HandlerSet takes either files (paths or globs of YAML files) or handlers (the set as data)",
    };
  }
  if (sources.files === undefined) return readSetData(sources.handlers, DATA_LABEL);
  const problems: SetProblem[] = [];
  const files = new Set<string>();
  for (const pattern of sources.files) {
    const matched = matchFiles(pattern, cwd);
    if (matched.length === 0) problems.push({ file: pattern, path: "", rule: "no file matches" });
    for (const file of matched) files.add(file);
  }
  const { sources: texts, problems: unreadable } = readSetSources(files, cwd);
  const reading = readSetFiles(texts);
  return { entries: reading.entries, problems: [...problems, ...unreadable, ...reading.problems] };
}

/** The secrets a set's entries reference, by the reference as written, and the problems found. */
export interface SetSecrets {
  readonly values: Map<string, string>;
  readonly problems: SetProblem[];
}

/**
 * Every secret the entries reference, read with `config` (full keys, `namespace:name`; a bare name is
 * the project's) and checked with the field's rule: a key not set, or a value the rule refuses, is a
 * problem of the entry's line. Neither the value nor the key is repeated in a message (a key written
 * by mistake may be the secret itself).
 */
export function readSetSecrets(
  entries: readonly SetEntry[],
  project: string,
  config: (key: string) => string | undefined,
): SetSecrets {
  const values = new Map<string, string>();
  const problems: SetProblem[] = [];
  for (const entry of entries) {
    for (const [property, value] of Object.entries(entry.fields)) {
      if (typeof value === "string") continue;
      const fail = (rule: string): void => {
        problems.push({ ...(entry.fieldsAt[property] ?? entry.at), path: `${entry.key}.${property}`, rule });
      };
      const configured = config(value.secret.includes(":") ? value.secret : `${project}:${value.secret}`);
      if (configured === undefined) {
        fail(
          "the stack's config has no value for its secret key: set it with " +
            "`pulumi config set --secret <key> ...`",
        );
        continue;
      }
      const violation = fieldViolation(fieldByProperty(property)!, configured);
      if (violation !== undefined) fail(`the value in the stack's config ${violation}`);
      else values.set(value.secret, configured);
    }
  }
  return { values, problems };
}

/**
 * An entry's inputs for its `NotificationHandler`: type, name, enabled, adoption and the type's fields,
 * each secret reference replaced by what `secret` makes of it (each provider wraps secrets its own way).
 */
export function entryInputs<S>(entry: SetEntry, secret: (reference: string) => S): Record<string, unknown> {
  return {
    type: entry.type,
    ...(entry.name !== undefined && { name: entry.name }),
    ...(entry.isEnabled !== undefined && { isEnabled: entry.isEnabled }),
    ...(entry.adopt !== undefined && { adopt: entry.adopt }),
    ...Object.fromEntries(
      Object.entries(entry.fields).map(([property, value]) => [
        property,
        typeof value === "string" ? value : secret(value.secret),
      ]),
    ),
  };
}
