/**
 * `HandlerSet`: notification handlers declared as data (docs/handler-sets.md), one `NotificationHandler`
 * per entry of YAML files or of a parsed object. Every file is read and checked, and every secret
 * found in the stack's config, before the component is registered: a set with a problem changes
 * nothing.
 */
import { globSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

import * as pulumi from "@pulumi/pulumi";

import { formatProblem, readSetData, readSetFiles, type SetEntry, type SetProblem } from "./handler-set-file";
import type { UpdateStrategy } from "./inputs";
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
    const config = readSecrets(entries);
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
            typeof value === "string" ? value : config.get(value.secret)!,
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
    const matched = globSync(pattern).sort();
    if (matched.length === 0) problems.push({ file: pattern, path: "", rule: "no file matches" });
    for (const file of matched) files.add(file);
  }
  const reading =
    args.handlers !== undefined
      ? readSetData(args.handlers, "handlers")
      : readSetFiles([...files].map((file) => ({ file, text: readFileSync(resolve(file), "utf8") })));
  problems.push(...reading.problems);
  if (problems.length > 0) throw new HandlerSetError(problems);
  return reading.entries;
}

/** Every secret the entries reference, read from the stack's config; a key not set is a problem. */
function readSecrets(entries: readonly SetEntry[]): Map<string, pulumi.Output<string>> {
  const secrets = new Map<string, pulumi.Output<string>>();
  const problems: SetProblem[] = [];
  for (const entry of entries) {
    for (const [property, value] of Object.entries(entry.fields)) {
      if (typeof value === "string" || secrets.has(value.secret)) continue;
      const colon = value.secret.indexOf(":");
      const config = colon < 0 ? new pulumi.Config() : new pulumi.Config(value.secret.slice(0, colon));
      const secret = config.getSecret(value.secret.slice(colon + 1));
      if (secret === undefined) {
        problems.push({
          ...(entry.fieldsAt[property] ?? entry.at),
          path: `${entry.key}.${property}`,
          rule: `the stack's config has no "${value.secret}": set it with \`pulumi config set --secret ${value.secret} ...\``,
        });
      } else {
        secrets.set(value.secret, secret);
      }
    }
  }
  if (problems.length > 0) throw new HandlerSetError(problems);
  return secrets;
}
