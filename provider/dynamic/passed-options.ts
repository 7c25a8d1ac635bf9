/**
 * Pulumi's resource options that the dynamic provider's host drops: it sends the provider neither
 * `ignoreChanges` nor `replaceOnChanges`, nor a create's timeout. `NotificationHandler` passes what the
 * program declared in its options as the hidden input `__options`, which the state keeps beside
 * `__provider`, and the provider reads it back from each call's properties. Options a transform adds
 * after the constructor ran do not reach it (docs/provider.md says so).
 */
import type { ResourceOptions } from "../core/resource-options";

/** The hidden input; `__` keeps it out of the engine's display and the provider's checks. */
export const OPTIONS_KEY = "__options";

/** The operations a custom timeout applies to. */
type TimedOperation = "create" | "update" | "delete";

/** What the resource passes: the options as declared, each timeout in seconds. */
export interface PassedOptions {
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

/** What to pass for `opts`; undefined when it declares none of them (the state stays as it was). */
export function passedOptions(opts: DeclaredOptions): PassedOptions | undefined {
  const passed: PassedOptions = {};
  if (opts.ignoreChanges?.length) passed.ignoreChanges = [...opts.ignoreChanges];
  if (opts.replaceOnChanges?.length) passed.replaceOnChanges = [...opts.replaceOnChanges];
  const timeouts: Partial<Record<TimedOperation, number>> = {};
  for (const operation of ["create", "update", "delete"] as const) {
    const text = opts.customTimeouts?.[operation];
    if (text !== undefined && text !== "") timeouts[operation] = durationSeconds(text, operation);
  }
  if (Object.keys(timeouts).length > 0) passed.customTimeouts = timeouts;
  return Object.keys(passed).length > 0 ? passed : undefined;
}

/** The options of one call, from the properties it received (`operation` for its timeout). */
export function optionsIn(properties: Record<string, unknown>, operation?: TimedOperation): ResourceOptions {
  const passed = (properties[OPTIONS_KEY] ?? {}) as PassedOptions;
  const options: ResourceOptions = {};
  if (passed.ignoreChanges !== undefined) options.ignoreChanges = passed.ignoreChanges;
  if (passed.replaceOnChanges !== undefined) options.replaceOnChanges = passed.replaceOnChanges;
  const seconds = operation === undefined ? undefined : passed.customTimeouts?.[operation];
  if (seconds !== undefined) options.timeoutSeconds = seconds;
  return options;
}

/** Outputs that keep the passed options, so a delete finds its timeout in them. */
export function keepingOptions<T extends object>(outputs: T, from: Record<string, unknown>): T {
  return from[OPTIONS_KEY] === undefined ? outputs : { ...outputs, [OPTIONS_KEY]: from[OPTIONS_KEY] };
}

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/**
 * A duration as Pulumi's `customTimeouts` takes it (Go's form: `30s`, `5m`, `1h30m`, `1.5h`), in
 * seconds; anything else fails naming the option.
 */
export function durationSeconds(text: string, operation: string): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    throw new Error(
      `customTimeouts.${operation}: ${JSON.stringify(text)} is not a duration such as "30s", "5m" or "1h30m"`,
    );
  }
  return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * UNITS[unit!]!, 0);
}
