/**
 * A stack's state as `pulumi stack export --show-secrets` writes it, as far as `recover` reads and
 * edits it: the resources, the pending operations, secret values (decrypted, and marked again for
 * `pulumi stack import`, which encrypts them), and the connection each handler resource used. No I/O.
 */
import { HANDLER_RESOURCE_TYPES, PACKAGE_NAME } from "../provider/for-cli";
import { CommandError } from "./io";

/** The key the state marks a secret value with, and the value it holds (Pulumi's state format). */
const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** One resource of the state. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  delete?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  provider?: string;
  [key: string]: unknown;
}

/** One pending operation: what the engine had started and not seen finish. */
export interface PendingOperation {
  resource: StateResource;
  type: string;
  [key: string]: unknown;
}

/** The `deployment` of an exported state. */
export interface Deployment {
  resources?: StateResource[];
  pending_operations?: PendingOperation[];
  [key: string]: unknown;
}

/** An exported state (`pulumi stack export`). */
export interface ExportedState {
  version: number;
  deployment: Deployment;
  [key: string]: unknown;
}

/** Reads an exported state; a clear error when the text is not one. */
export function parseExportedState(text: string, source: string): ExportedState {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CommandError(`${source} is not JSON: expected the output of \`pulumi stack export\``);
  }
  const state = parsed as Partial<ExportedState> | null;
  if (state === null || typeof state !== "object" || typeof state.deployment !== "object")
    throw new CommandError(`${source} has no "deployment": expected the output of \`pulumi stack export\``);
  return state as ExportedState;
}

/** Whether a resource is a notification handler, from either provider. */
export function isHandlerResource(resource: StateResource): boolean {
  return HANDLER_RESOURCE_TYPES.includes(resource.type);
}

/** A value of the state with its secrets decrypted into plain values; encrypted ones are an error. */
export function plainValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainValue);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  if (record[SECRET_SIG_KEY] === SECRET_SIG) {
    if (typeof record.plaintext !== "string")
      throw new CommandError(
        "the state holds encrypted secrets: read it from `pulumi stack export --show-secrets`",
      );
    return plainValue(JSON.parse(record.plaintext));
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, plainValue(v)]));
}

/** A plain value marked secret, as `pulumi stack import` takes it (and encrypts it). */
export function secretValue(value: unknown): Record<string, string> {
  return { [SECRET_SIG_KEY]: SECRET_SIG, plaintext: JSON.stringify(value) };
}

/** A resource's inputs, secrets decrypted. */
export function plainInputs(resource: StateResource): Record<string, unknown> {
  return plainValue(resource.inputs ?? {}) as Record<string, unknown>;
}

/**
 * The provider configuration a handler resource was created with: its provider resource's inputs
 * (the dynamic provider's `pulumi-nodejs` provider carries the stack's config keys, `notification-handlers:baseUrl`;
 * the plugin's provider carries `baseUrl`), read by config key.
 */
export function providerConfig(
  deployment: Deployment,
  resource: StateResource,
): (key: string) => string | undefined {
  const reference = resource.provider ?? "";
  const separator = reference.lastIndexOf("::");
  const urn = reference.slice(0, separator);
  const id = reference.slice(separator + 2);
  const provider = (deployment.resources ?? []).find((r) => r.urn === urn && r.id === id);
  const inputs = provider === undefined ? {} : plainInputs(provider);
  return (key) => {
    const bare = key.startsWith(`${PACKAGE_NAME}:`) ? key.slice(PACKAGE_NAME.length + 1) : key;
    const value = inputs[key] ?? inputs[bare];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
}
