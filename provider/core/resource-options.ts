/**
 * Pulumi's resource options that the provider acts on itself, as each call receives them: the plugin
 * from the engine's requests, the dynamic provider, whose host drops them, from what the resource
 * passed (`../dynamic/passed-options`).
 */

/** What a call knows of the program's options. */
export interface ResourceOptions {
  /** Property paths the program leaves to whoever edits them elsewhere (`ignoreChanges`). */
  ignoreChanges?: readonly string[];
  /** Property paths whose change replaces the handler (`replaceOnChanges`). */
  replaceOnChanges?: readonly string[];
  /** Seconds this call's operation may take (`customTimeouts`); none when absent or 0. */
  timeoutSeconds?: number;
  /** The resource's name in the program: how messages name it. */
  resource?: string;
  /** The resource's URN, where the call has one (the plugin's): how its create finds its diff. */
  urn?: string;
}

/**
 * Whether Pulumi property paths name `property`: `slack`, `settings.url` (its top-level property
 * `settings`), `["name"]`, or `*` for every property.
 */
export function namesProperty(paths: readonly string[] | undefined, property: string): boolean {
  return (paths ?? []).some((path) => path === "*" || topLevel(path) === property);
}

function topLevel(path: string): string {
  const quoted = /^\["([^"]+)"\]/.exec(path);
  return quoted !== null ? quoted[1]! : path.split(/[.[]/)[0]!;
}

/** Whether the program leaves a property to others, by `options.ignoreChanges`. */
export function ignoredBy(options: ResourceOptions): (property: string) => boolean {
  return (property) => namesProperty(options.ignoreChanges, property);
}
