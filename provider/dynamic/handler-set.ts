/**
 * `HandlerSet` of TypeScript programs (the plugin's is `../plugin/construct`): notification handlers
 * declared as data (docs/handler-sets.md), one `NotificationHandler` per entry of YAML files or of a
 * parsed object. Every file is read and checked, and every secret found in the stack's config, before
 * the component is registered: a set with a problem changes nothing.
 */
import * as pulumi from "@pulumi/pulumi";

import { describeProblems, type SetEntry, type SetProblem } from "../handler-sets/format";
import { entryInputs, readHandlerSet, readSetSecrets } from "../handler-sets/entries";
import type { UpdateStrategy } from "../../sdk/client/domain/settings";
import { type ConnectionArgs, NotificationHandler, type NotificationHandlerArgs } from "./resource";
import { DYNAMIC_HANDLER_SET_TYPE } from "../tokens";

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
    super(describeProblems(problems));
    this.name = "HandlerSetError";
  }
}

/** Handlers declared as data; `handlers` holds the children by key. */
export class HandlerSet extends pulumi.ComponentResource {
  /** The set's handlers, by key. */
  public readonly handlers: Readonly<Record<string, NotificationHandler>>;

  constructor(name: string, args: HandlerSetArgs, opts?: pulumi.ComponentResourceOptions) {
    const entries = checkedEntries(args);
    const secrets = readSecrets(entries);
    super(DYNAMIC_HANDLER_SET_TYPE, name, {}, opts);
    const handlers: Record<string, NotificationHandler> = {};
    for (const entry of entries) {
      const resourceArgs = {
        ...entryInputs(entry, (reference) => secrets.get(reference)!),
        ...(args.connection !== undefined && { connection: args.connection }),
        ...(args.updateStrategy !== undefined && { updateStrategy: args.updateStrategy }),
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
  const reading = readHandlerSet(args, process.cwd());
  if ("refused" in reading) throw new pulumi.RunError(reading.refused);
  if (reading.problems.length > 0) throw new HandlerSetError(reading.problems);
  return reading.entries;
}

/** Every secret the entries reference, from the stack's config; a `HandlerSetError` names what is amiss. */
function readSecrets(entries: readonly SetEntry[]): Map<string, pulumi.Output<string>> {
  const { values, problems } = readSetSecrets(entries, pulumi.getProject(), (key) =>
    pulumi.runtime.getConfig(key),
  );
  if (problems.length > 0) throw new HandlerSetError(problems);
  return new Map([...values].map(([reference, value]) => [reference, pulumi.secret(value)]));
}
