/**
 * The Pulumi package schema of the `notification-handlers` plugin, built from the handler-type catalog:
 * the `NotificationHandler` resource, its lookups, the provider's configuration and the settings of the
 * SDKs generated from it. No I/O: `npm run generate` writes it to `provider/schema.json`, and
 * the plugin answers the engine's GetSchema with it.
 */
import {
  type FieldSpec,
  HANDLER_TYPES,
  HANDLER_TYPE_NAMES,
  NAME_MAX_LENGTH,
  RULE_DESCRIPTIONS,
} from "../../sdk/client/domain/catalog";
import {
  type Setting,
  SETTINGS,
  type UpdateStrategy,
  UPDATE_STRATEGIES,
} from "../../sdk/client/domain/settings";
import { shortKey } from "../core/config";
import {
  GET_HANDLERS_TOKEN,
  GET_HANDLER_TOKEN,
  HANDLER_INFO_TOKEN,
  HANDLER_RESOURCE_TOKEN,
  HANDLER_SET_TOKEN,
  HANDLER_TYPE_TOKEN,
  PACKAGE_NAME,
  PLUGIN_DOWNLOAD_URL,
  REPOSITORY_URL,
  UPDATE_STRATEGY_TOKEN,
} from "../tokens";

/** Pulumi's own type of any value: what a set given as data holds is checked by the set's rules. */
export const ANY_TOKEN = "pulumi.json#/Any";
/** A property (or a reference to a type) of the schema. */
export interface PropertySpec {
  type?: "string" | "integer" | "boolean" | "object" | "array";
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  oneOf?: PropertySpec[];
  description?: string;
  secret?: boolean;
  willReplaceOnChanges?: boolean;
}

/** Properties by name, with the names that must be set. */
export interface ObjectSpec {
  description?: string;
  type?: "object";
  properties: Record<string, PropertySpec>;
  required?: string[];
}

/** An enum type of the schema. */
export interface EnumSpec {
  description: string;
  type: "string";
  enum: { name: string; value: string; description?: string }[];
}

/** A resource of the schema, the provider's own included: its inputs and its outputs. */
export interface ResourceSpec {
  description: string;
  /** A component: the plugin builds it, and its children, through Construct. */
  isComponent?: boolean;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
  properties?: Record<string, PropertySpec>;
  required?: string[];
}

/** A function (a lookup) of the schema. */
export interface FunctionSpec {
  description: string;
  inputs: ObjectSpec;
  outputs: ObjectSpec;
}

/** The package schema, as far as this package fills it in. */
export interface PulumiPackageSchema {
  name: string;
  displayName: string;
  publisher: string;
  description: string;
  keywords: string[];
  homepage: string;
  repository: string;
  license: string;
  /** Where the engine downloads the plugin from, `${VERSION}` being the version an SDK asks for. */
  pluginDownloadURL: string;
  config: { variables: Record<string, PropertySpec> };
  provider: ResourceSpec;
  types: Record<string, ObjectSpec | EnumSpec>;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  meta: { supportPack: boolean };
  language: Record<string, object>;
}

const ref = (token: string): PropertySpec => ({ $ref: `#/types/${token}` });
const described = (spec: PropertySpec, description: string): PropertySpec => ({ ...spec, description });

/** `microsoft_teams` -> `MicrosoftTeams`, `in-place` -> `InPlace`: the SDKs' names of enum values. */
function pascalCase(value: string): string {
  return value
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

const UPDATE_STRATEGY_DESCRIPTIONS: Record<UpdateStrategy, string> = {
  "in-place": "Update the handler in place.",
  replace: "Create a new handler, then delete the old one.",
};

const UPDATE_STRATEGY_MEANING =
  "How a change the API could apply in place is carried out: `in-place` updates the handler; " +
  "`replace` creates a new handler, then deletes the old one (for deployed instances whose update is defective).";

/**
 * The provider's settings, as stack config variables and as the provider resource's inputs: every
 * setting of the table with a configuration key, named by the key without the package's prefix.
 */
function settings(): Record<string, PropertySpec> {
  const specs: Record<string, PropertySpec> = {};
  for (const setting of Object.values(SETTINGS) as Setting<string | number>[]) {
    if (setting.configKey === undefined) continue;
    const name = shortKey(setting.configKey);
    // The fallbacks are described, not declared as `defaultInfo`: the provider reads the environment
    // itself, so a generated SDK does not copy the value into the program's inputs.
    const parts = [
      `${setting.description.charAt(0).toUpperCase()}${setting.description.slice(1)}; must be ${setting.rule.description}.`,
      setting.default === undefined ? "" : ` Default \`${setting.default}\`.`,
      setting.env === undefined ? "" : ` Falls back to the \`${setting.env}\` environment variable.`,
    ];
    specs[name] = {
      // A plain string for the strategy, not the enum: config variables are read with each
      // language's getters of primitives.
      type: typeof setting.default === "number" ? "integer" : "string",
      ...(setting.secret ? { secret: true } : {}),
      description: parts.join(""),
    };
  }
  return specs;
}

/** A catalog field as a property: a string, secret where the catalog says so. */
function fieldProperty(type: string, spec: FieldSpec): PropertySpec {
  const description =
    `${spec.label}, for type \`${type}\` (required there, refused on other types): ` +
    `${RULE_DESCRIPTIONS[spec.rule]}, at most ${spec.maxLength} characters.`;
  return { type: "string", description, ...(spec.secret && { secret: true }) };
}

/** Every catalog field, by property name. */
function fieldProperties(): Record<string, PropertySpec> {
  return Object.fromEntries(
    HANDLER_TYPE_NAMES.flatMap((type) =>
      HANDLER_TYPES[type].fields.map((spec) => [spec.property, fieldProperty(type, spec)] as const),
    ),
  );
}

/** The resource's inputs, which its outputs repeat. */
function handlerInputs(): Record<string, PropertySpec> {
  return {
    type: {
      ...ref(HANDLER_TYPE_TOKEN),
      description: "The handler type; changing it replaces the handler.",
      willReplaceOnChanges: true,
    },
    name: {
      type: "string",
      description: `Display name, 1 to ${NAME_MAX_LENGTH} characters; defaults to the resource name.`,
    },
    isEnabled: {
      type: "boolean",
      description:
        "Whether the handler is enabled (default true); an email handler waiting for confirmation counts as enabled.",
    },
    ...fieldProperties(),
    adopt: {
      oneOf: [{ type: "boolean" }, { type: "integer" }],
      description:
        "Take over an existing handler instead of creating one: `true` takes the one handler of the " +
        "same name and type, an integer the handler of that id. Either is then brought to the desired state.",
    },
    updateStrategy: {
      ...ref(UPDATE_STRATEGY_TOKEN),
      description: `${UPDATE_STRATEGY_MEANING} Defaults to the provider's \`updateStrategy\`.`,
    },
  };
}

/** What the API reports of a handler: the resource's outputs beyond its inputs. */
const REPORTED = {
  handlerId: { type: "integer", description: "The handler's id in the API." },
  pendingConfirmation: {
    type: "boolean",
    description: "True while an email handler waits for its address to be confirmed.",
  },
  settings: {
    type: "object",
    additionalProperties: { type: "string" },
    description: "The type-specific settings as the API reports them, by form field name.",
  },
  lastDatetime: {
    type: "string",
    description: "Datetime of the last update (`Y-m-d H:i:s`); absent when never updated.",
  },
  datetime: { type: "string", description: "Creation datetime (`Y-m-d H:i:s`)." },
} satisfies Record<string, PropertySpec>;

/** A handler found by a lookup: what the API reports, with its type and name. */
function handlerInfo(): ObjectSpec {
  const { handlerId, ...reported } = REPORTED;
  return {
    description: "A notification handler as the API reports it.",
    type: "object",
    properties: {
      handlerId,
      // A site may hold types the catalog does not know, or none: a plain string, not the enum.
      type: { type: "string", description: "The handler type; absent when the site stores none." },
      name: { type: "string", description: "Display name." },
      isEnabled: { type: "boolean", description: "Whether the handler is enabled." },
      ...reported,
      // Of any type, found by a query: kept secret whatever it holds.
      settings: { ...reported.settings, secret: true },
    },
    required: ["handlerId", "name", "isEnabled", "pendingConfirmation", "settings", "datetime"],
  };
}

function notificationHandler(): ResourceSpec {
  const inputs = handlerInputs();
  return {
    description:
      "A notification handler of the Notification Handlers API: where alerts go (email, a chat, " +
      "a webhook, a phone). Each type takes its own fields; secret fields stay encrypted in the state.",
    inputProperties: inputs,
    requiredInputs: ["type"],
    properties: {
      ...inputs,
      ...REPORTED,
      settings: {
        ...REPORTED.settings,
        description: `${REPORTED.settings.description} Secret when the type has a credential field.`,
      },
    },
    required: ["handlerId", "type", "name", "isEnabled", "pendingConfirmation", "settings", "datetime"],
  };
}

function handlerSet(): ResourceSpec {
  return {
    description:
      "Notification handlers declared as data: one `NotificationHandler` per entry of YAML files " +
      "(or of `handlers`), each a child of the set. Every file is read and checked, and every " +
      "`{ secret: <stack config key> }` read from the stack's config, before anything is registered: " +
      "a set with a problem fails with one `FILE:LINE:COLUMN: key.field: rule` line per problem and changes nothing.",
    isComponent: true,
    inputProperties: {
      files: {
        type: "array",
        items: { type: "string" },
        description:
          "YAML files, paths or globs (`handlers/*.yaml`; `*`, `?`, `[...]`, `**`) relative to the " +
          "program's folder, read as one set. Either this or `handlers`.",
      },
      handlers: {
        type: "object",
        additionalProperties: { $ref: ANY_TOKEN },
        description:
          "The set as data: resource keys to handlers, as a file would hold them. Either this or `files`.",
      },
      updateStrategy: {
        ...ref(UPDATE_STRATEGY_TOKEN),
        description: `${UPDATE_STRATEGY_MEANING} For every handler of the set; defaults to the provider's \`updateStrategy\`.`,
      },
    },
    properties: {
      handlerIds: {
        type: "object",
        additionalProperties: { type: "integer" },
        description: "Each handler's id in the API, by resource key.",
      },
    },
    required: ["handlerIds"],
  };
}

function lookups(): Record<string, FunctionSpec> {
  const type = described(ref(HANDLER_TYPE_TOKEN), "Only handlers of this type.");
  return {
    [GET_HANDLER_TOKEN]: {
      description:
        "The one handler with this name (and type, if given), read with the provider's settings; " +
        "fails when there is none or more than one.",
      inputs: {
        properties: {
          name: { type: "string", description: "Exact name (compared as the API stores it)." },
          type,
        },
        required: ["name"],
      },
      outputs: handlerInfo(),
    },
    [GET_HANDLERS_TOKEN]: {
      description:
        "Every handler that matches the filters (all of the account's when none is given), read with the provider's settings.",
      inputs: {
        properties: {
          name: { type: "string", description: "Exact name (compared as the API stores it)." },
          search: { type: "string", description: "Case-insensitive part of the name." },
          type,
          isEnabled: { type: "boolean", description: "Only enabled, or only disabled, handlers." },
        },
      },
      outputs: {
        properties: {
          handlers: {
            type: "array",
            items: ref(HANDLER_INFO_TOKEN),
            description: "The handlers found, in the API's order.",
          },
        },
        required: ["handlers"],
      },
    },
  };
}

function types(): Record<string, ObjectSpec | EnumSpec> {
  return {
    [HANDLER_TYPE_TOKEN]: {
      description: "A notification handler type.",
      type: "string",
      enum: HANDLER_TYPE_NAMES.map((value) => ({
        name: pascalCase(value),
        value,
        description: HANDLER_TYPES[value].label,
      })),
    },
    [UPDATE_STRATEGY_TOKEN]: {
      description: "How a change the API could apply in place is carried out.",
      type: "string",
      enum: UPDATE_STRATEGIES.map((value) => ({
        name: pascalCase(value),
        value,
        description: UPDATE_STRATEGY_DESCRIPTIONS[value],
      })),
    },
    [HANDLER_INFO_TOKEN]: handlerInfo(),
  };
}

/**
 * The package schema, without a version: the plugin stamps its own version on it when it answers the
 * engine, as Pulumi's providers do, so the committed file changes only with the catalog.
 */
export function pulumiSchema(): PulumiPackageSchema {
  const config = settings();
  return {
    name: PACKAGE_NAME,
    displayName: "Notification Handlers",
    // The SDKs' author: the .NET package names it, and names Pulumi when the schema has none.
    publisher: "Notification Handlers",
    description: "Notification handlers of the Notification Handlers API as code.",
    keywords: ["pulumi", "notifications", "category/utility", "kind/native"],
    homepage: REPOSITORY_URL,
    repository: REPOSITORY_URL,
    license: "Apache-2.0",
    // Every SDK sends it, with its own version, on each registration and invoke: installing the SDK
    // is all a user does, the engine fetches the plugin (docs/plugin.md#installing-the-plugin).
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    config: { variables: config },
    provider: {
      description:
        "The provider: one site and one account on it. Declare one explicitly for another site or account than the stack's configuration.",
      inputProperties: config,
    },
    types: types(),
    resources: { [HANDLER_RESOURCE_TOKEN]: notificationHandler(), [HANDLER_SET_TOKEN]: handlerSet() },
    functions: lookups(),
    // The SDKs' present layout (sdk/go its own Go module, the version stamped into every SDK), as
    // `pulumi package gen-sdk` writes it (docs/plugin.md#sdks-for-python-go-and-net).
    meta: { supportPack: true },
    // No nodejs section: TypeScript and JavaScript programs use this package's own `NotificationHandler`
    // (the dynamic provider), and a generated Node.js SDK would be a second, different one.
    language: {
      python: {
        packageName: "pulumi_notification_handlers",
        // The oldest `pulumi` the generated code accepts (3.231.0) needs Python 3.10: without this
        // line the SDK would claim 3.9.
        pythonRequires: ">=3.10",
      },
      go: {
        importBasePath:
          "github.com/notification-handlers/pulumi-notification-handlers/sdk/go/notificationhandlers",
        // With a `go` section, `supportPack` alone leaves the SDK's version empty: its resources
        // would register with none, and the engine would pick a plugin version itself.
        respectSchemaVersion: true,
      },
      // Not under `Pulumi`: NuGet reserves that prefix for Pulumi's own packages.
      csharp: {
        rootNamespace: "NotificationHandlers",
        namespaces: { [PACKAGE_NAME]: "NotificationHandlers" },
        packageReferences: { Pulumi: "3.*" },
      },
    },
  };
}

/** The schema as the committed file holds it: pretty-printed, with a trailing newline. */
export function pulumiSchemaJson(): string {
  return `${JSON.stringify(pulumiSchema(), null, 2)}\n`;
}
