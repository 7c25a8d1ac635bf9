/**
 * The handler-type catalog: the one table of the twelve handler types and their fields.
 *
 * The server's validation, the client's parameter types, the provider's inputs and the table in
 * docs/provider.md#handler-types all derive from it. Adding a type is one entry in `HANDLER_TYPES`.
 */
import { urlPattern } from "./url-pattern";

/** How a field's value is checked. */
export type FieldRule =
  | "email"
  | "http-url" // absolute http or https URL, its host an IP address or an ASCII domain
  | "https-url" // absolute https URL, likewise
  | "telegram-token" // digits:token-chars
  | "telegram-chat-id" // optionally negative integer, or @name
  | "non-empty"
  | "phone"; // E.164: + then 7 to 15 digits

/** One type-specific form field. */
export interface FieldSpec {
  /** Form field name in the API (`telegram_chat_id`). */
  readonly field: string;
  /** Property name in the provider and the client's camelCase views (`telegramChatId`). */
  readonly property: string;
  /** Human label for docs and messages. */
  readonly label: string;
  readonly rule: FieldRule;
  /** Longest accepted value, in characters, after trimming. */
  readonly maxLength: number;
  /** Whether the value is a credential that must be kept secret (tokens, webhook URLs, X keys). */
  readonly secret: boolean;
}

/** Longest name, in characters, after trimming. */
export const NAME_MAX_LENGTH = 128;
/** Longest value of most fields. */
export const FIELD_MAX_LENGTH = 512;
/** Longest value of a phone field. */
export const PHONE_MAX_LENGTH = 32;

// Generic so each entry keeps its literal field and property names and secrecy: the client's parameter
// types, the provider's argument types and the policies' view of a handler are derived from them.
const field = <N extends string, P extends string, S extends boolean>(
  name: N,
  property: P,
  label: string,
  rule: FieldRule,
  secret: S,
): FieldSpec & { readonly field: N; readonly property: P; readonly secret: S } => ({
  field: name,
  property,
  label,
  rule,
  maxLength: rule === "phone" ? PHONE_MAX_LENGTH : FIELD_MAX_LENGTH,
  secret,
});

/** Every handler type and its fields, in the order of docs/api.md#handler-types. */
export const HANDLER_TYPES = {
  email: { label: "Email", fields: [field("email", "email", "Email address", "email", false)] },
  webhook: { label: "Webhook", fields: [field("webhook", "webhook", "Webhook URL", "http-url", true)] },
  slack: { label: "Slack", fields: [field("slack", "slack", "Slack webhook URL", "https-url", true)] },
  discord: {
    label: "Discord",
    fields: [field("discord", "discord", "Discord webhook URL", "https-url", true)],
  },
  telegram: {
    label: "Telegram",
    fields: [
      field("telegram", "telegram", "Telegram API token", "telegram-token", true),
      field("telegram_chat_id", "telegramChatId", "Telegram chat id", "telegram-chat-id", false),
    ],
  },
  microsoft_teams: {
    label: "Microsoft Teams",
    fields: [field("microsoft_teams", "microsoftTeams", "Microsoft Teams webhook URL", "https-url", true)],
  },
  twilio: { label: "Twilio SMS", fields: [field("twilio", "twilio", "Phone number", "phone", false)] },
  twilio_call: {
    label: "Twilio call",
    fields: [field("twilio_call", "twilioCall", "Phone number", "phone", false)],
  },
  whatsapp: { label: "WhatsApp", fields: [field("whatsapp", "whatsapp", "Phone number", "phone", false)] },
  x: {
    label: "X",
    fields: [
      field("x_consumer_key", "xConsumerKey", "X consumer key", "non-empty", true),
      field("x_consumer_secret", "xConsumerSecret", "X consumer secret", "non-empty", true),
      field("x_access_token", "xAccessToken", "X access token", "non-empty", true),
      field("x_access_token_secret", "xAccessTokenSecret", "X access token secret", "non-empty", true),
    ],
  },
  google_chat: {
    label: "Google Chat",
    fields: [field("google_chat", "googleChat", "Google Chat webhook URL", "https-url", true)],
  },
  internal_notification: { label: "Internal notification", fields: [] },
} as const satisfies Record<string, { label: string; fields: readonly FieldSpec[] }>;

/** A handler type known to this catalog. */
export type HandlerType = keyof typeof HANDLER_TYPES;

/** The twelve types, in catalog order. */
export const HANDLER_TYPE_NAMES = Object.keys(HANDLER_TYPES) as HandlerType[];

/** Form field names of type `T`. */
export type FieldOf<T extends HandlerType> = (typeof HANDLER_TYPES)[T]["fields"][number]["field"];
/** The specs of type `T`'s fields, each with its literal names and secrecy. */
export type FieldSpecOf<T extends HandlerType> = (typeof HANDLER_TYPES)[T]["fields"][number];
/** camelCase property names of type `T`. */
export type PropertyOf<T extends HandlerType> = (typeof HANDLER_TYPES)[T]["fields"][number]["property"];

/** Every type-specific field, across all types. */
export const ALL_FIELDS: readonly FieldSpec[] = HANDLER_TYPE_NAMES.flatMap(
  (t): readonly FieldSpec[] => HANDLER_TYPES[t].fields,
);

const FIELDS_BY_NAME = new Map(ALL_FIELDS.map((f) => [f.field, f]));
const FIELDS_BY_PROPERTY = new Map(ALL_FIELDS.map((f) => [f.property, f]));
const TYPE_OF_FIELD = new Map<string, HandlerType>(
  HANDLER_TYPE_NAMES.flatMap((t) => fieldsOf(t).map((f) => [f.field, t] as const)),
);

/** Whether `value` names a type of this catalog. */
export function isHandlerType(value: unknown): value is HandlerType {
  return typeof value === "string" && Object.hasOwn(HANDLER_TYPES, value);
}

/** The fields of a type (empty for an unknown type). */
export function fieldsOf(type: string): readonly FieldSpec[] {
  return isHandlerType(type) ? HANDLER_TYPES[type].fields : [];
}

/** The spec of a form field by its API name. */
export function fieldByName(name: string): FieldSpec | undefined {
  return FIELDS_BY_NAME.get(name);
}

/** The spec of a field by its camelCase property name. */
export function fieldByProperty(property: string): FieldSpec | undefined {
  return FIELDS_BY_PROPERTY.get(property);
}

/** The type a form field belongs to. */
export function typeOfField(name: string): HandlerType | undefined {
  return TYPE_OF_FIELD.get(name);
}

const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:]+$/;
const TELEGRAM_TOKEN = /^\d+:[A-Za-z0-9_-]+$/;
const TELEGRAM_CHAT_ID = /^(-?\d+|@[A-Za-z0-9_]+)$/;
const PHONE = /^\+\d{7,15}$/;

/** The rules a regular expression decides alone, for the handler-set schema (URLs: `URL_PATTERNS`). */
export const RULE_PATTERNS: Partial<Record<FieldRule, RegExp>> = {
  email: EMAIL,
  "telegram-token": TELEGRAM_TOKEN,
  "telegram-chat-id": TELEGRAM_CHAT_ID,
  phone: PHONE,
};

/** What each rule demands, worded for error messages. */
export const RULE_DESCRIPTIONS: Record<FieldRule, string> = {
  email: "must be an email address",
  "http-url": "must be an absolute http or https URL",
  "https-url": "must be an absolute https URL",
  "telegram-token": "must be a Telegram bot token (digits, a colon, then letters, digits, _ or -)",
  "telegram-chat-id": "must be an integer chat id (optionally negative) or an @name",
  "non-empty": "must not be empty",
  phone: "must be a phone number in E.164 form (+ then 7 to 15 digits)",
};

/** The rules whose values are URLs. */
export type UrlRule = Extract<FieldRule, "http-url" | "https-url">;

/**
 * What the trimmed value of each URL rule must match: an absolute URL of the rule's schemes whose host
 * is an IP address or an ASCII domain (a domain in Unicode goes in its punycode `xn--` form), with no
 * control character or blank inside. The OpenAPI document publishes these patterns as they are.
 */
export const URL_PATTERNS: Readonly<Record<UrlRule, RegExp>> = {
  "http-url": new RegExp(urlPattern(["http", "https"]), "u"),
  "https-url": new RegExp(urlPattern(["https"]), "u"),
};

// The parser has the last word, so that every stored URL is one Node reads. It refuses no value the
// pattern matches (test/unit/openapi.test.ts), or the document would allow what the server refuses.
function isUrl(rule: UrlRule, value: string): boolean {
  return URL_PATTERNS[rule].test(value) && URL.canParse(value);
}

/** Checks one value (already trimmed) against its rule; returns the reason it fails, or undefined. */
export function ruleViolation(rule: FieldRule, value: string): string | undefined {
  const ok = (() => {
    switch (rule) {
      case "email":
        return EMAIL.test(value);
      case "http-url":
      case "https-url":
        return isUrl(rule, value);
      case "telegram-token":
        return TELEGRAM_TOKEN.test(value);
      case "telegram-chat-id":
        return TELEGRAM_CHAT_ID.test(value);
      case "non-empty":
        return value.length > 0;
      case "phone":
        return PHONE.test(value);
    }
  })();
  return ok ? undefined : RULE_DESCRIPTIONS[rule];
}

/** Checks a field value (trimmed first) against its rule and length; returns the reason, or undefined. */
export function fieldViolation(spec: FieldSpec, raw: string): string | undefined {
  const value = raw.trim();
  if (value.length === 0) return "is required and must not be empty";
  if (value.length > spec.maxLength) return `must be at most ${spec.maxLength} characters`;
  return ruleViolation(spec.rule, value);
}

/** Checks a handler name (trimmed first); returns the reason, or undefined. */
export function nameViolation(raw: string): string | undefined {
  const value = raw.trim();
  if (value.length === 0) return "is required and must not be empty";
  if (value.length > NAME_MAX_LENGTH) return `must be at most ${NAME_MAX_LENGTH} characters`;
  return undefined;
}
