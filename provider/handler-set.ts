/**
 * `HandlerSet`: notification handlers declared as data (docs/handler-sets.md), one `NotificationHandler`
 * per entry of YAML files or of a parsed object. Every file is read and checked, and every secret
 * found in the stack's config, before the component is registered: a set with a problem changes
 * nothing.
 */
import * as pulumi from "@pulumi/pulumi";

import { fieldByProperty, fieldViolation } from "../sdk/client/catalog";
import { matchFiles, readSetSources } from "./handler-set-sources";
import {
  formatProblem,
  readSetData,
  readSetFiles,
  type SetEntry,
  type SetProblem,
} from "./handler-set-format";
import type { UpdateStrategy } from "../sdk/client/settings";
import { type ConnectionArgs, NotificationHandler, type NotificationHandlerArgs } from "./resource";

/** The arguments of a `HandlerSet`: files or data, and the options of every handler in it. */
export interface HandlerSetArgs {
  /** YAML files, paths or globs (`handlers/*.yaml`) relative to the program's folder. */
  files?: string[];
  /** The set as data: resource keys to handlers, as a file would hold them. */
  handlers?: Record<string, unknown>;
  /** Where the handlers live, when not on the provider's configured site and account. */
  connection?: pulumi.Input<ConnectionArgs>;
  /** How changes the API could apply in place are carried out (see `NotificationHandler`). */
  updateStrategy?: pulumi.Input<UpdateStrategy>;
}

/**
 * A set that does not check: every problem, one `FILE:LINE:COLUMN: key.field: rule` line each. A
 * `RunError`, so the engine prints the lines, not a stack trace.
 */
export class HandlerSetError extends pulumi.RunError {
  constructor(readonly problems: readonly SetProblem[]) {
    super(
      `the handler set has ${problems.length} problem${problems.length === 1 ? "" : "s"}; nothing was changed:\n` +
        problems.map(formatProblem).join("\n"),
    );
    this.name = "HandlerSetError";
  }
}

/** The component's type token. */
const HANDLER_SET_TYPE = "pulumi-notification-handlers:index:HandlerSet";

/** Handlers declared as data; `handlers` holds the children by key. */
export class HandlerSet extends pulumi.ComponentResource {
  /** The set's handlers, by key. */
  public readonly handlers: Readonly<Record<string, NotificationHandler>>;

  constructor(name: string, args: HandlerSetArgs, opts?: pulumi.ComponentResourceOptions) {
    const entries = checkedEntries(args);
    const secrets = readSecrets(entries);
    super(HANDLER_SET_TYPE, name, {}, opts);
    const handlers: Record<string, NotificationHandler> = {};
    for (const entry of entries) {
      const resourceArgs = {
        type: entry.type,
        ...(entry.name !== undefined && { name: entry.name }),
        ...(entry.isEnabled !== undefined && { isEnabled: entry.isEnabled }),
        ...(entry.adopt !== undefined && { adopt: entry.adopt }),
        ...(args.connection !== undefined && { connection: args.connection }),
        ...(args.updateStrategy !== undefined && { updateStrategy: args.updateStrategy }),
        ...Object.fromEntries(
          Object.entries(entry.fields).map(([property, value]) => [
            property,
            typeof value === "string" ? value : secrets.get(value.secret)!,
          ]),
        ),
      } as NotificationHandlerArgs;
      handlers[entry.key] = new NotificationHandler(entry.key, resourceArgs, {
        parent: this,
        ...(entry.was !== undefined && { aliases: [{ name: entry.was }] }),
      });
    }
    this.handlers = handlers;
    this.registerOutputs({});
  }
}

/** The set's entries, or a `HandlerSetError` naming every problem of every file. */
function checkedEntries(args: HandlerSetArgs): SetEntry[] {
  if ((args.files === undefined) === (args.handlers === undefined)) {
    throw new pulumi.RunError(
      "HandlerSet takes either files (paths or globs of YAML files) or handlers (the set as data)",
    );
  }
  const problems: SetProblem[] = [];
  const files = new Set<string>();
  for (const pattern of args.files ?? []) {
    const matched = matchFiles(pattern, process.cwd());
    if (matched.length === 0) problems.push({ file: pattern, path: "", rule: "no file matches" });
    for (const file of matched) files.add(file);
  }
  const { sources, problems: unreadable } = readSetSources(files, process.cwd());
  problems.push(...unreadable);
  const reading =
    args.handlers !== undefined ? readSetData(args.handlers, "handlers") : readSetFiles(sources);
  problems.push(...reading.problems);
  if (problems.length > 0) throw new HandlerSetError(problems);
  return reading.entries;
}

/**
 * Every secret the entries reference, read from the stack's config and checked with the field's
 * rule: a key not set, or a value the rule refuses, is a problem of the entry's line. Neither the
 * value nor the key is repeated in a message (a key written by mistake may be the secret itself).
 */
function readSecrets(entries: readonly SetEntry[]): Map<string, pulumi.Output<string>> {
  const secrets = new Map<string, pulumi.Output<string>>();
  const problems: SetProblem[] = [];
  for (const entry of entries) {
    for (const [property, value] of Object.entries(entry.fields)) {
      if (typeof value === "string") continue;
      const fail = (rule: string): void => {
        problems.push({ ...(entry.fieldsAt[property] ?? entry.at), path: `${entry.key}.${property}`, rule });
      };
      const key = value.secret.includes(":") ? value.secret : `${pulumi.getProject()}:${value.secret}`;
      const configured = pulumi.runtime.getConfig(key);
      if (configured === undefined) {
        fail(
          "the stack's config has no value for its secret key: set it with " +
            "`pulumi config set --secret <key> ...`",
        );
        continue;
      }
      const violation = fieldViolation(fieldByProperty(property)!, configured);
      if (violation !== undefined) fail(`the value in the stack's config ${violation}`);
      else secrets.set(value.secret, pulumi.secret(configured));
    }
  }
  if (problems.length > 0) throw new HandlerSetError(problems);
  return secrets;
}
