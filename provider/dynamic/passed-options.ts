/**
 * Pulumi's resource options that the dynamic provider's host drops: it sends the provider neither
 * `ignoreChanges` nor `replaceOnChanges`, nor a create's timeout. `NotificationHandler` passes what the
 * program declared in its options as the hidden input `__options`, which the state keeps beside
 * `__provider`, and the provider reads it back from each call's properties. Options a transform adds
 * after the constructor ran do not reach it (docs/provider.md says so).
 */
import type { ResourceOptions } from "../core/resource-options";
import { durationSeconds } from "./duration";

/** The hidden input; `__` keeps it out of the engine's display and the provider's checks. */
export const OPTIONS_KEY = "__options";

/** The operations a custom timeout applies to. */
type TimedOperation = "create" | "update" | "delete";

/** What the resource passes: the options as declared, each timeout in seconds, and its name. */
export interface PassedOptions {
  /** The resource's name: a create finds its diff by it (core/replacements.ts). */
  resource?: string;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  customTimeouts?: Partial<Record<TimedOperation, number>>;
}

/** The part of Pulumi's `CustomResourceOptions` read here. */
export interface DeclaredOptions {
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  customTimeouts?: Partial<Record<TimedOperation, string>>;
}

/** What resource `name` passes for `opts`; undefined when it declares none of them (the state stays as it was). */
export function passedOptions(opts: DeclaredOptions, name: string): PassedOptions | undefined {
  const passed: PassedOptions = {};
  if (opts.ignoreChanges?.length) passed.ignoreChanges = [...opts.ignoreChanges];
  if (opts.replaceOnChanges?.length) passed.replaceOnChanges = [...opts.replaceOnChanges];
  const timeouts: Partial<Record<TimedOperation, number>> = {};
  for (const operation of ["create", "update", "delete"] as const) {
    const text = opts.customTimeouts?.[operation];
    if (text !== undefined && text !== "") timeouts[operation] = durationSeconds(text, operation);
  }
  if (Object.keys(timeouts).length > 0) passed.customTimeouts = timeouts;
  return Object.keys(passed).length > 0 ? { resource: name, ...passed } : undefined;
}

/** The options of one call, from the properties it received (`operation` for its timeout). */
export function optionsIn(properties: Record<string, unknown>, operation?: TimedOperation): ResourceOptions {
  const { customTimeouts, ...options } = (properties[OPTIONS_KEY] ?? {}) as PassedOptions;
  const seconds = operation === undefined ? undefined : customTimeouts?.[operation];
  return seconds === undefined ? options : { ...options, timeoutSeconds: seconds };
}

/**
 * Outputs (or a refresh's inputs) that keep the passed options: a delete finds its timeout in them,
 * and an `ignoreChanges: ["*"]`, which makes the engine take every input from the state, still finds them.
 */
export function keepingOptions<T extends object>(outputs: T, from: Record<string, unknown>): T {
  return from[OPTIONS_KEY] === undefined ? outputs : { ...outputs, [OPTIONS_KEY]: from[OPTIONS_KEY] };
}
