/**
 * `NotificationHandler`: a notification handler of the Notification Handlers API as a Pulumi resource.
 */
import * as pulumi from "@pulumi/pulumi";

import {
  ALL_FIELDS,
  type HANDLER_TYPES,
  type HandlerType,
  type PropertyOf,
  fieldsOf,
  isHandlerType,
} from "../../sdk/client/domain/catalog";
import type { UpdateStrategy } from "../../sdk/client/domain/settings";
import { OPTIONS_KEY, passedOptions } from "./passed-options";
import { providerSource } from "./provider-source";
import { PROVIDER_KEY } from "./state-contract";
import { DYNAMIC_RESOURCE_TYPE } from "../tokens";
import { SECRET_INPUTS, secretOutputsOf } from "../core/secret-properties";
import { sourceRecord } from "./source-record";

type FieldSpecOf<T extends HandlerType> = (typeof HANDLER_TYPES)[T]["fields"][number];
type AnyProperty = PropertyOf<HandlerType>;

/** The type-specific inputs of type `T`, each required. */
export type NotificationHandlerFields<T extends HandlerType> = {
  [F in FieldSpecOf<T> as F["property"]]: pulumi.Input<string>;
};

/**
 * An explicit connection: one site (its base URL) and one account on it (an API key). Declare it
 * once and pass it to every resource (and lookup) of that account. The whole connection is kept as a
 * secret in the state; messages name the base URL only.
 */
export interface ConnectionArgs {
  /** The site's URL, such as `https://example.com` (the API lives under `/api/`). */
  baseUrl: pulumi.Input<string>;
  /** The API key of the account on that site; pass a secret (`config.requireSecret(...)`). */
  apiKey: pulumi.Input<string>;
}

/** Inputs shared by every type. */
export interface NotificationHandlerCommonArgs {
  /** Display name; defaults to the resource name. 1 to 128 characters. */
  name?: pulumi.Input<string>;
  /** Whether the handler is enabled (default `true`). An email handler waiting for confirmation counts as enabled. */
  isEnabled?: pulumi.Input<boolean>;
  /**
   * Take over an existing handler instead of creating one: `true` takes the one handler of the same
   * name and type, a number takes that id. Either is then brought to the desired state.
   */
  adopt?: pulumi.Input<boolean | number>;
  /**
   * How changes the API could apply in place are carried out: `"in-place"` (default) updates the
   * handler; `"replace"` creates a new handler, then deletes the old one (for deployed instances whose
   * update is defective). Defaults to the provider's `notification-handlers:updateStrategy`.
   */
  updateStrategy?: pulumi.Input<UpdateStrategy>;
  /**
   * Where this handler lives, when not on the provider's configured site and account
   * (`notification-handlers:baseUrl` and `:apiKey`). Another base URL replaces the handler (created on
   * the new site, then deleted from the old one); a new key for the same site changes nothing in the
   * API (key rotation).
   */
  connection?: pulumi.Input<ConnectionArgs>;
}

/** The arguments for type `T`: its own fields required, fields of other types forbidden. */
export type NotificationHandlerArgsOf<T extends HandlerType> = NotificationHandlerCommonArgs & {
  /** The handler type; changing it replaces the handler. */
  type: T;
} & NotificationHandlerFields<T> & {
    [P in Exclude<AnyProperty, FieldSpecOf<T>["property"]>]?: never;
  };

/** The arguments of a `NotificationHandler`: a union discriminated by `type`. */
export type NotificationHandlerArgs = { [T in HandlerType]: NotificationHandlerArgsOf<T> }[HandlerType];

/** Options of a `NotificationHandler`. */
export type NotificationHandlerOptions = pulumi.CustomResourceOptions;

/** The outputs of every handler, whatever its type. */
const COMMON_OUTPUTS = [
  "handlerId",
  "type",
  "name",
  "isEnabled",
  "pendingConfirmation",
  "settings",
  "lastDatetime",
  "datetime",
] as const;

let recorded: string | undefined;

/** The provider source this program's handlers record (`./provider-source`), found once per run. */
function recordedSource(): string {
  if (recorded === undefined) {
    // Relative to the folder the dynamic-provider process runs in, the project's root: above the
    // program's own folder when Pulumi.yaml sets `main`. An SDK that does not say runs it in the program's.
    const root = pulumi.runtime.getRootDirectory?.() || process.cwd();
    recorded = providerSource(sourceRecord(root));
  }
  return recorded;
}

/**
 * Gives a handler the field properties of the other types as outputs that resolve to `undefined`
 * (what the engine would give them: the provider never sets another type's field), made when first
 * read instead of registered with the resource.
 */
function absentFields(resource: NotificationHandler, own: readonly { property: string }[]): void {
  const owned = new Set(own.map((f) => f.property));
  for (const { property } of ALL_FIELDS) {
    // A field the program passed anyway was registered (the provider's check refuses it).
    if (owned.has(property) || Object.prototype.hasOwnProperty.call(resource, property)) continue;
    let value: pulumi.Output<undefined> | undefined;
    Object.defineProperty(resource, property, {
      configurable: true,
      enumerable: false,
      get: () => (value ??= pulumi.output(undefined)),
    });
  }
}

/** The handler id of an `import` option, which the resource takes over as `adopt` does. */
function importedId(id: pulumi.ID): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new Error(`import: "${id}" is not a notification handler id (a positive integer)`);
  return n;
}

/**
 * A notification handler managed through the Notification Handlers API.
 *
 * A dynamic resource: its type token routes it to Pulumi's Node.js dynamic-provider plugin, and its
 * `__provider` property is the provider's module source. It extends `CustomResource` directly, as
 * `dynamic.Resource` does, to hand over a short source instead of a serialized closure (see
 * `./provider-source`).
 */
export class NotificationHandler extends pulumi.CustomResource {
  /** The handler's id in the API. */
  declare public readonly handlerId: pulumi.Output<number>;
  /** The handler type. */
  declare public readonly type: pulumi.Output<HandlerType>;
  /** Display name. */
  declare public readonly name: pulumi.Output<string>;
  /** Whether the handler is enabled. */
  declare public readonly isEnabled: pulumi.Output<boolean>;
  /** True while an email handler waits for its address to be confirmed. */
  declare public readonly pendingConfirmation: pulumi.Output<boolean>;
  /** The type-specific settings as the API reports them (secret). */
  declare public readonly settings: pulumi.Output<Record<string, string>>;
  /** Datetime of the last update (`Y-m-d H:i:s`), or null. */
  declare public readonly lastDatetime: pulumi.Output<string | null>;
  /** Creation datetime (`Y-m-d H:i:s`). */
  declare public readonly datetime: pulumi.Output<string>;
  /** Email address (type `email`). */
  declare public readonly email: pulumi.Output<string | undefined>;
  /** Webhook URL (type `webhook`; secret). */
  declare public readonly webhook: pulumi.Output<string | undefined>;
  /** Slack webhook URL (type `slack`; secret). */
  declare public readonly slack: pulumi.Output<string | undefined>;
  /** Discord webhook URL (type `discord`; secret). */
  declare public readonly discord: pulumi.Output<string | undefined>;
  /** Telegram API token (type `telegram`; secret). */
  declare public readonly telegram: pulumi.Output<string | undefined>;
  /** Telegram chat id (type `telegram`). */
  declare public readonly telegramChatId: pulumi.Output<string | undefined>;
  /** Microsoft Teams webhook URL (type `microsoft_teams`; secret). */
  declare public readonly microsoftTeams: pulumi.Output<string | undefined>;
  /** Google Chat webhook URL (type `google_chat`; secret). */
  declare public readonly googleChat: pulumi.Output<string | undefined>;
  /** X consumer key (type `x`; secret). */
  declare public readonly xConsumerKey: pulumi.Output<string | undefined>;
  /** X consumer secret (type `x`; secret). */
  declare public readonly xConsumerSecret: pulumi.Output<string | undefined>;
  /** X access token (type `x`; secret). */
  declare public readonly xAccessToken: pulumi.Output<string | undefined>;
  /** X access token secret (type `x`; secret). */
  declare public readonly xAccessTokenSecret: pulumi.Output<string | undefined>;
  /** Phone number (type `twilio`). */
  declare public readonly twilio: pulumi.Output<string | undefined>;
  /** Phone number (type `twilio_call`). */
  declare public readonly twilioCall: pulumi.Output<string | undefined>;
  /** Phone number (type `whatsapp`). */
  declare public readonly whatsapp: pulumi.Output<string | undefined>;

  /**
   * Declares a handler. With `opts.id` and no args, reads the existing handler of that id instead
   * (see {@link NotificationHandler.get}). The dynamic provider's host drops some of Pulumi's options,
   * so the resource passes them itself: `ignoreChanges`, `replaceOnChanges` and `customTimeouts` as
   * declared here, and `import` as `adopt` with that id (the host cannot serve an import's read).
   */
  constructor(name: string, args: NotificationHandlerArgs, opts?: NotificationHandlerOptions);
  /** @internal */
  constructor(
    name: string,
    args: undefined,
    opts: NotificationHandlerOptions & { id: pulumi.Input<pulumi.ID> },
    connection?: pulumi.Input<ConnectionArgs>,
  );
  constructor(
    name: string,
    args: NotificationHandlerArgs | undefined,
    opts: NotificationHandlerOptions = {},
    connection?: pulumi.Input<ConnectionArgs>,
  ) {
    const props: Record<string, unknown> = {};
    // A read (`get`) takes its connection alone: the provider's read uses the recorded properties.
    if (connection !== undefined) props.connection = pulumi.secret(connection);
    const { import: imported, ...declared } = opts;
    if (args !== undefined) {
      for (const [key, value] of Object.entries(args)) {
        // Credentials (and the connection, which holds a key) are secret in the inputs and the outputs,
        // whether or not the program marked them.
        props[key] = SECRET_INPUTS.includes(key) && value !== undefined ? pulumi.secret(value) : value;
      }
      props.name = args.name ?? name;
      if (imported !== undefined) {
        if (args.adopt !== undefined)
          throw new Error(`${name}: set either adopt or the import option, not both`);
        props.adopt = importedId(imported);
      }
      const passed = passedOptions(declared, name);
      if (passed !== undefined) props[OPTIONS_KEY] = passed;
    }
    // The fields of the handler's own type are outputs the engine resolves; those of the other types
    // are never set, and stay plain (see `absentFields`). Each output costs the Node.js SDK four
    // promises, each with a captured stack trace: 24 outputs per resource were a third of the
    // program's processor time in a create-up.
    const type = args?.type;
    const own = isHandlerType(type) ? fieldsOf(type) : ALL_FIELDS;
    for (const output of [...COMMON_OUTPUTS, ...own.map((f) => f.property)]) {
      if (!(output in props)) props[output] = undefined;
    }
    props[PROVIDER_KEY] = recordedSource();
    // The SDK captures a stack trace for each promise of a registration, for its report of leaked
    // promises; under ts-node every trace is source-mapped frame by frame, which cost more than the
    // rest of the registration. They are left empty here; the limit is back before anything else runs.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(
        NotificationHandler.__pulumiType,
        name,
        props,
        pulumi.mergeOptions(args === undefined ? opts : declared, {
          additionalSecretOutputs: [...secretOutputsOf(type)],
        }),
      );
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    if (own !== ALL_FIELDS) absentFields(this, own);
  }

  /** The resource's type token, as the engine records it. */
  public static readonly __pulumiType = DYNAMIC_RESOURCE_TYPE;

  /**
   * Whether `obj` is a `NotificationHandler`, even one made by another copy of this package (the
   * check compares Pulumi's type token, as generated resource classes do, not the prototype).
   */
  public static override isInstance(obj: unknown): obj is NotificationHandler {
    if (obj === undefined || obj === null || typeof obj !== "object") return false;
    return (obj as { __pulumiType?: unknown }).__pulumiType === NotificationHandler.__pulumiType;
  }

  /**
   * Reads an existing handler by its API id into the program, without managing it: on the provider's
   * configured site, or through `connection` on another site or account.
   */
  public static get(
    name: string,
    id: pulumi.Input<pulumi.ID | number>,
    opts?: pulumi.CustomResourceOptions,
    connection?: pulumi.Input<ConnectionArgs>,
  ): NotificationHandler {
    return new NotificationHandler(
      name,
      undefined,
      { ...opts, id: pulumi.output(id).apply(String) },
      connection,
    );
  }
}
