/**
 * What a policy sees of a handler, whichever provider made it: the resource's inputs typed by its
 * handler `type` from the catalog, its credential fields as {@link SecretValue}s, and a value the
 * engine does not know yet (at preview) as {@link UNKNOWN}. docs/policies.md#the-two-type-tokens.
 */
import { inspect } from "node:util";

import { UnknownValueError } from "@pulumi/policy";

import {
  type FieldSpec,
  type FieldSpecOf,
  type HandlerType,
  fieldsOf,
  isHandlerType,
} from "../../sdk/client/domain/catalog";
import { DYNAMIC_RESOURCE_TYPE, HANDLER_RESOURCE_TYPES, PACKAGE_NAME } from "../tokens";

/** A value the engine does not know yet: a preview of a program that computes it. Checked at `up`. */
export const UNKNOWN: unique symbol = Symbol("unknown until up");
/** The type of {@link UNKNOWN}. */
export type Unknown = typeof UNKNOWN;

/**
 * A credential (a webhook URL, a token, an X key) kept out of messages: printed, logged or turned into
 * JSON it shows `[secret]`. A rule that must look at it calls {@link SecretValue.reveal}.
 */
export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The value itself, for a check; never put it in a message. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return "[secret]";
  }

  toJSON(): string {
    return "[secret]";
  }

  [inspect.custom](): string {
    return "[secret]";
  }
}

/** A field's value in a policy's view: a credential wrapped, other text as it is. */
type ViewValue<F extends FieldSpec> = (F["secret"] extends true ? SecretValue : string) | Unknown;

/** The fields of type `T` by property name, each absent when the program did not set it. */
export type HandlerFields<T extends HandlerType> = {
  readonly [F in FieldSpecOf<T> as F["property"]]?: ViewValue<F>;
};

/** One handler of type `T`, as a policy sees it. */
export interface HandlerViewOf<T extends HandlerType> {
  /** The handler's type: narrows {@link HandlerView}, so that `fields` are that type's. */
  readonly type: T;
  /** The resource's name in the program. */
  readonly resourceName: string;
  readonly urn: string;
  /** Which provider made it: the dynamic provider (TypeScript) or the plugin (YAML, Python, Go...). */
  readonly provider: "dynamic" | "plugin";
  /** The handler's name as the API will have it. */
  readonly name: string | Unknown;
  /** Whether the handler sends alerts (the API's default, true, when the program leaves it out). */
  readonly isEnabled: boolean | Unknown;
  readonly fields: HandlerFields<T>;
  /**
   * The site it is on, when the resource says: the dynamic provider's `connection.baseUrl`, or the
   * `baseUrl` of the plugin's provider (explicit, or the default one from the stack's config).
   * Undefined when the site is the dynamic provider's configuration, which a policy does not see.
   */
  readonly site: string | Unknown | undefined;
}

/** A handler of any type; switch on `type` for the fields of one. */
export type HandlerView = { [T in HandlerType]: HandlerViewOf<T> }[HandlerType];

/** The two type tokens of a handler: the dynamic provider's resource type and the plugin's token. */
export const HANDLER_TYPES_IN_POLICIES: readonly string[] = HANDLER_RESOURCE_TYPES;

/** The type of the plugin's providers, default or explicit: their `baseUrl` is the handlers' site. */
export const PLUGIN_PROVIDER_TYPE = `pulumi:providers:${PACKAGE_NAME}`;

/** Whether a resource of `type` is a handler, made by either provider. */
export function isHandlerResource(type: string): boolean {
  return HANDLER_TYPES_IN_POLICIES.includes(type);
}

/** Reads `read()`, answering {@link UNKNOWN} for what `@pulumi/policy` says is unknown during preview. */
export function known<T>(read: () => T): T | Unknown {
  try {
    return read();
  } catch (error) {
    if (error instanceof UnknownValueError) return UNKNOWN;
    throw error;
  }
}

/** The text at `props[key]`: text, unknown, or undefined when absent or of another shape. */
function text(props: Record<string, unknown>, key: string): string | Unknown | undefined {
  const value = known(() => props[key]);
  return typeof value === "string" || value === UNKNOWN ? value : undefined;
}

/** A field's value in the view: the catalog says whether it is a credential. */
function fieldValue(
  spec: FieldSpec,
  props: Record<string, unknown>,
): SecretValue | string | Unknown | undefined {
  const value = text(props, spec.property);
  if (value === undefined || value === UNKNOWN) return value;
  return spec.secret ? new SecretValue(value) : value;
}

/** The site a handler's resource names: its own connection's, else its plugin provider's. */
function siteOf(
  props: Record<string, unknown>,
  provider: { type: string; props: Record<string, unknown> } | undefined,
): string | Unknown | undefined {
  const connection = known(() => props.connection);
  if (connection === UNKNOWN) return UNKNOWN;
  if (typeof connection === "object" && connection !== null)
    return text(connection as Record<string, unknown>, "baseUrl");
  if (provider?.type === PLUGIN_PROVIDER_TYPE) return text(provider.props, "baseUrl");
  return undefined;
}

/** What a resource validation and a stack validation both give of a resource. */
interface PolicyResourceLike {
  type: string;
  props: Record<string, unknown>;
  urn: string;
  name: string;
  provider?: { type: string; props: Record<string, unknown> } | undefined;
}

/**
 * The handler `resource` declares, typed by its handler type; undefined when it is no handler, or
 * when its type is not known yet (at preview: `up` checks it) or not in the catalog (the provider
 * refuses it anyway).
 */
export function handlerView(resource: PolicyResourceLike): HandlerView | undefined {
  if (!isHandlerResource(resource.type)) return undefined;
  const props = resource.props;
  const type = known(() => props.type);
  if (!isHandlerType(type)) return undefined;
  const fields: Record<string, SecretValue | string | Unknown> = {};
  for (const spec of fieldsOf(type)) {
    const value = fieldValue(spec, props);
    if (value !== undefined) fields[spec.property] = value;
  }
  const isEnabled = known(() => props.isEnabled);
  return {
    type,
    resourceName: resource.name,
    urn: resource.urn,
    provider: resource.type === DYNAMIC_RESOURCE_TYPE ? "dynamic" : "plugin",
    name: text(props, "name") ?? resource.name,
    isEnabled: typeof isEnabled === "boolean" || isEnabled === UNKNOWN ? isEnabled : true,
    fields,
    site: siteOf(props, resource.provider),
  };
}

/** Each set field of a handler with its catalog spec, in catalog order. */
export function fieldEntries(
  handler: HandlerView,
): { spec: FieldSpec; value: SecretValue | string | Unknown }[] {
  const fields = handler.fields as Readonly<Record<string, SecretValue | string | Unknown | undefined>>;
  return fieldsOf(handler.type).flatMap((spec) => {
    const value = fields[spec.property];
    return value === undefined ? [] : [{ spec, value }];
  });
}
