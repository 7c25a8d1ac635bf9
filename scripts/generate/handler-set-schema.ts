/**
 * The JSON Schema of handler-set files, `docs/handler-set.schema.json`, from the catalog
 * (`npm run generate` writes it); editors that read `# yaml-language-server: $schema=...` complete
 * and flag fields with it.
 */
import { type COMMON, CONFIG_KEY, KEY } from "../../provider/handler-sets/format";
import {
  type FieldRule,
  type FieldSpec,
  HANDLER_TYPES,
  HANDLER_TYPE_NAMES,
  NAME_MAX_LENGTH,
  RULE_DESCRIPTIONS,
  RULE_PATTERNS,
  fieldsOf,
} from "../../sdk/client/domain/catalog";

// A plain YAML scalar such as +15551234567 or -100123 reads as a number; the set takes its spelling.
const TEXT = { type: ["string", "number"] };

const COMMON_PROPERTIES: Record<(typeof COMMON)[number], object> = {
  type: { description: "The handler type; changing it replaces the handler.", enum: HANDLER_TYPE_NAMES },
  name: {
    ...TEXT,
    minLength: 1,
    maxLength: NAME_MAX_LENGTH,
    description: `Display name, 1 to ${NAME_MAX_LENGTH} characters; defaults to the key.`,
  },
  isEnabled: { type: "boolean", description: "Whether the handler is enabled (default true)." },
  adopt: {
    description:
      "Take over an existing handler: true takes the one of the same name and type, a number that id.",
    anyOf: [{ type: "boolean" }, { type: "integer", minimum: 1 }],
  },
  was: { ...TEXT, pattern: KEY.source, description: "The key this handler had before a rename." },
};

const URL_PATTERNS: Partial<Record<FieldRule, string>> = {
  "http-url": "^https?://",
  "https-url": "^https://",
};

function fieldSchema(spec: FieldSpec): object {
  const description = `${spec.label}: ${RULE_DESCRIPTIONS[spec.rule]}`;
  if (spec.secret) {
    // In draft-07 a $ref's siblings are ignored: the description sits beside an allOf.
    return {
      description: `${description}. A secret: { secret: <stack config key> }.`,
      allOf: [{ $ref: "#/definitions/secret" }],
    };
  }
  const pattern = RULE_PATTERNS[spec.rule]?.source ?? URL_PATTERNS[spec.rule];
  const text = { ...TEXT, minLength: 1, maxLength: spec.maxLength, ...(pattern && { pattern }) };
  return {
    description: `${description}; or { secret: <stack config key> }.`,
    anyOf: [text, { $ref: "#/definitions/secret" }],
  };
}

/** The schema: a mapping of resource keys to handlers, each checked against its type's fields. */
export function handlerSetSchema(): object {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "Notification handler set",
    description: "Resource keys to notification handlers (docs/handler-sets.md).",
    type: ["object", "null"],
    propertyNames: { pattern: KEY.source },
    additionalProperties: { $ref: "#/definitions/handler" },
    definitions: {
      secret: {
        type: "object",
        properties: {
          secret: {
            ...TEXT,
            pattern: CONFIG_KEY.source,
            description: "A stack config key set with --secret.",
          },
        },
        required: ["secret"],
        additionalProperties: false,
      },
      handler: {
        type: "object",
        required: ["type"],
        properties: COMMON_PROPERTIES,
        allOf: HANDLER_TYPE_NAMES.map((type) => ({
          if: { properties: { type: { const: type } }, required: ["type"] },
          then: {
            description: HANDLER_TYPES[type].label,
            properties: {
              ...COMMON_PROPERTIES,
              ...Object.fromEntries(fieldsOf(type).map((f) => [f.property, fieldSchema(f)])),
            },
            required: ["type", ...fieldsOf(type).map((f) => f.property)],
            additionalProperties: false,
          },
        })),
      },
    },
  };
}

/** The schema as the committed file holds it. */
export function handlerSetSchemaJson(): string {
  return `${JSON.stringify(handlerSetSchema(), null, 2)}\n`;
}
