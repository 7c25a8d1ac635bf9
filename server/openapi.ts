/**
 * The OpenAPI 3.1 description of the reference service (docs/api.md#openapi-document), generated from the
 * handler-type catalog as the validation is: a new type or field shows up here with no edit. The
 * server serves it at `GET /api/openapi.json`; `npm run generate` writes `docs/openapi.json`.
 */
import {
  ALL_FIELDS,
  DEFAULT_RESULTS_PER_PAGE,
  type FieldRule,
  type FieldSpec,
  HANDLER_TYPES,
  HANDLER_TYPE_NAMES,
  type HandlerType,
  LIST_ORDER_BY,
  LIST_ORDER_TYPES,
  NAME_MAX_LENGTH,
  RESULTS_PER_PAGE,
  RULE_DESCRIPTIONS,
  RULE_PATTERNS,
  URL_PATTERNS,
  type UrlRule,
  anyCase,
  fieldsOf,
} from "#shared";
import { BODY_LIMIT, FORM_CONTENT_TYPES, TITLES } from "./errors";
import {
  canonicalIntegerPattern,
  literal,
  paddedIntegerPattern,
  trimmed,
  trimmedLengthPattern,
} from "./openapi-patterns";
import { DEFAULT_REQUEST_TIMEOUT, MAX_HEADER_SIZE, PROTOCOL_TITLES } from "./protocol";

/** Where the description is served. */
export const OPENAPI_PATH = "/api/openapi.json";

/** A JSON object of the document. */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const responseRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/**
 * A real calendar instant as `Y-m-d H:i:s`, as the server's `isDatetime` decides (proleptic Gregorian
 * years 0000 to 9999): a fuzzer reads patterns, not prose, so the pattern itself refuses 2023-02-29,
 * 2024-04-31 and 24:00:00. Leap years end in a multiple of 4 other than 00, or are a multiple of 400.
 */
const DATETIME_PATTERN = (() => {
  const day28 = "(?:0[1-9]|1[0-9]|2[0-8])";
  const day30 = "(?:0[1-9]|[12][0-9]|30)";
  const day31 = "(?:0[1-9]|[12][0-9]|3[01])";
  // Two digits that are a multiple of 4: 00 too, or not.
  const multipleOf4 = "(?:0[048]|[2468][048]|[13579][26])";
  const nonZeroMultipleOf4 = "(?:0[48]|[2468][048]|[13579][26])";
  const leapYear = `(?:[0-9]{2}${nonZeroMultipleOf4}|${multipleOf4}00)`;
  const monthDay = `(?:(?:0[13578]|1[02])-${day31}|(?:0[469]|11)-${day30}|02-${day28})`;
  const date = `(?:[0-9]{4}-${monthDay}|${leapYear}-02-29)`;
  return `^${date} (?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$`;
})();
const BOOLEAN_PATTERN = "^\\s*([01]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\\s*$";
/** The largest id: 2^53 - 1, the largest integer JSON readers keep exactly. */
const MAX_ID = Number.MAX_SAFE_INTEGER;

/** The catalog's pattern of a rule a regular expression decides. */
function catalogPattern(rule: FieldRule): RegExp {
  const pattern = RULE_PATTERNS[rule];
  if (pattern === undefined) throw new Error(`the catalog has no pattern for ${rule}`);
  return pattern;
}

/**
 * What each catalog rule accepts in a form, on the value as sent: the server trims it, then checks
 * it. Keyed by the rule, so a new rule in the catalog does not compile until it is described here;
 * test/unit/openapi.test.ts checks these against the catalog's own checks. The length, and with it
 * "not blank", is the `Text<n>` schema each field also has.
 */
const FORM_RULES: Record<FieldRule, Json[]> = {
  email: [{ pattern: trimmed(catalogPattern("email")) }],
  "http-url": [ref("HttpUrl")],
  "https-url": [ref("HttpsUrl")],
  "telegram-token": [{ pattern: trimmed(catalogPattern("telegram-token")) }],
  "telegram-chat-id": [{ pattern: trimmed(catalogPattern("telegram-chat-id")) }],
  "non-empty": [],
  phone: [{ pattern: trimmed(catalogPattern("phone")) }],
};

/**
 * Each rule on a returned setting, which is the value as accepted, trimmed. URLs have no pattern here:
 * a store may hold URLs that a looser rule took, and reading them back must not break a client.
 */
const SETTING_RULES: Record<FieldRule, Json> = {
  email: { pattern: catalogPattern("email").source },
  "http-url": {},
  "https-url": {},
  "telegram-token": { pattern: catalogPattern("telegram-token").source },
  "telegram-chat-id": { pattern: catalogPattern("telegram-chat-id").source },
  "non-empty": { pattern: "\\S" },
  phone: { pattern: catalogPattern("phone").source },
};

/** The rule each URL schema describes. */
const URL_SCHEMAS = { HttpUrl: "http-url", HttpsUrl: "https-url" } as const satisfies Record<string, UrlRule>;

/** The URL rule in words, for readers of the description rather than the pattern. */
const URL_RULE =
  "The host is an IPv4 address, an IPv6 address in brackets or an ASCII domain: a host in Unicode or " +
  "with percent-escapes is refused, so send the domain's punycode `xn--` form " +
  "(`https://xn--bcher-kva.example/`, not `https://bücher.example/`). No control character and no " +
  "blank may appear inside the value. " +
  "Within that, the URLs the WHATWG URL parser (Node's `URL`) takes, its leniencies included " +
  "(`https:host`, backslashes, user info, an empty port, any path). The pattern is the server's rule " +
  "exactly.";

function urlSchema(name: keyof typeof URL_SCHEMAS): Json {
  const rule = URL_SCHEMAS[name];
  return {
    type: "string",
    pattern: trimmed(URL_PATTERNS[rule]),
    description: `A form value that ${RULE_DESCRIPTIONS[rule]}, blanks around it allowed. ${URL_RULE}`,
  };
}

/** The name of the schema of form values 1 to `max` UTF-16 code units long once trimmed. */
function textSchemaName(max: number): string {
  return `Text${max}`;
}

/** Every length a form field has, the name's included. */
const TEXT_LENGTHS = [...new Set([NAME_MAX_LENGTH, ...ALL_FIELDS.map((f) => f.maxLength)])].sort(
  (a, b) => a - b,
);

function textSchema(max: number): Json {
  return {
    type: "string",
    pattern: trimmedLengthPattern(max),
    description:
      `A form value of 1 to ${max} characters once trimmed (docs/api.md#field-lengths): blanks around it ` +
      "are allowed and do not count, and characters count as UTF-16 code units, so one outside the " +
      "Basic Multilingual Plane (most emoji) counts two. The pattern says exactly that.",
  };
}

/** `microsoft_teams` as `MicrosoftTeams`, for schema names. */
function pascal(type: string): string {
  return type
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/**
 * How the server counts a length (docs/api.md#field-lengths), which `maxLength` cannot say: JSON
 * Schema counts characters, the server UTF-16 code units of the trimmed value.
 */
const LENGTH_RULE =
  "Blanks around the value are dropped before it is checked; the length counts UTF-16 code units, so a " +
  "character outside the Basic Multilingual Plane (most emoji) counts two.";

const SECRET = " A credential: kept secret by clients, though the API returns it.";

/** One type-specific field as a form field: the value as sent, which the server trims. */
function formFieldSchema(spec: FieldSpec): Json {
  return {
    type: "string",
    description:
      `${spec.label}: ${RULE_DESCRIPTIONS[spec.rule]}; at most ${spec.maxLength} characters. ` +
      `${LENGTH_RULE}${spec.secret ? SECRET : ""}`,
    allOf: [ref(textSchemaName(spec.maxLength)), ...FORM_RULES[spec.rule]],
    ...(spec.secret ? { "x-secret": true } : {}),
  };
}

/** One type-specific field as a settings key: the value as accepted, trimmed. */
function settingSchema(spec: FieldSpec): Json {
  return {
    type: "string",
    minLength: 1,
    maxLength: spec.maxLength,
    ...SETTING_RULES[spec.rule],
    description:
      `${spec.label}: ${RULE_DESCRIPTIONS[spec.rule]}; at most ${spec.maxLength} UTF-16 code units.` +
      (spec.secret ? SECRET : ""),
    ...(spec.secret ? { "x-secret": true } : {}),
  };
}

function settingsSchema(type: HandlerType): Json {
  const fields = fieldsOf(type);
  return {
    type: "object",
    description: `The settings of a ${HANDLER_TYPES[type].label} handler: exactly the fields of its type.`,
    properties: Object.fromEntries(fields.map((f) => [f.field, settingSchema(f)])),
    required: fields.map((f) => f.field),
    additionalProperties: false,
  };
}

function handlerSchema(type: HandlerType): Json {
  return {
    type: "object",
    description: `A ${HANDLER_TYPES[type].label} handler.`,
    properties: {
      id: ref("HandlerId"),
      type: { const: type },
      name: { type: "string", minLength: 1, maxLength: NAME_MAX_LENGTH },
      settings: ref(`${pascal(type)}Settings`),
      is_enabled: { type: "boolean" },
      last_datetime: {
        oneOf: [ref("Datetime"), { type: "null" }],
        description: "When the handler was last updated (UTC), or null until it is.",
      },
      datetime: { ...ref("Datetime"), description: "When the handler was created (UTC)." },
    },
    required: ["id", "type", "name", "settings", "is_enabled", "last_datetime", "datetime"],
    additionalProperties: false,
  };
}

const nameField = {
  type: "string",
  description: `The display name, 1 to ${NAME_MAX_LENGTH} characters. ${LENGTH_RULE}`,
  allOf: [ref(textSchemaName(NAME_MAX_LENGTH))],
};
const enabledField = {
  type: "string",
  pattern: BOOLEAN_PATTERN,
  description: "1, 0, true or false, in any case; blanks around it are dropped.",
};

/** The form's `type`: the type's name, which the server trims first, as it does every field. */
function typeField(type: HandlerType): Json {
  return {
    type: "string",
    pattern: `^\\s*${literal(type)}\\s*$`,
    description: `\`${type}\`; blanks around it are dropped.`,
  };
}

/**
 * A create's form, every field required, or what every update may carry, whatever the handler: common
 * fields and the fields of one type, matching `type` when it is sent. The rest of an update's rules
 * depends on the handler (UPDATE_TYPE_RULE).
 */
function formSchema(type: HandlerType, create: boolean): Json {
  const fields = fieldsOf(type);
  const { label } = HANDLER_TYPES[type];
  return {
    type: "object",
    description: create
      ? `Creates a ${label} handler.`
      : `Updates a handler with ${label} fields, or with none.`,
    properties: {
      name: nameField,
      type: typeField(type),
      is_enabled: create
        ? { ...enabledField, description: `${enabledField.description} True when left out.` }
        : enabledField,
      ...Object.fromEntries(fields.map((f) => [f.field, formFieldSchema(f)])),
    },
    ...(create ? { required: ["name", "type", ...fields.map((f) => f.field)] } : {}),
    additionalProperties: false,
  };
}

/**
 * The part of the update rules that depends on the handler's current type, which no schema knows
 * (docs/api.md#update-fields-and-type).
 */
const UPDATE_TYPE_RULE =
  "The type-specific fields must belong to the handler's current type when `type` is left out or is " +
  "the current type; a `type` other than the current one switches the handler to it, and then every " +
  "field of that type must be sent (the old type's settings are dropped). So a form with `type=T` that " +
  "lacks a field F of type T is a 400 on a handler of another type, its entry's detail " +
  "`F is required for type T`, and is accepted on a handler of type T. A form that breaks this rule is " +
  "a 400 naming each field at fault.";

/** A form body: either accepted content type, with the same fields. */
function formBody(schema: Json, description: string): Json {
  return {
    required: true,
    description:
      `${description} The body is at most ${BODY_LIMIT} bytes. Each field is sent once, as a plain ` +
      "field: a repeated field, a multipart part with a filename (a file) and a name the schema does not " +
      "list are each a 400 naming the field, and so is a form that does not parse (multipart without its " +
      "boundary, for one).",
    content: Object.fromEntries(FORM_CONTENT_TYPES.map((type) => [type, { schema }])),
  };
}

const errorSchema: Json = {
  type: "object",
  properties: {
    errors: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: {
          title: { type: "string", description: "A fixed text per kind of problem, to match on." },
          status: { type: "integer", description: "The answer's HTTP status." },
          detail: { type: "string" },
          source: {
            type: "object",
            properties: {
              parameter: { type: "string", description: "The form field or query parameter at fault." },
            },
            required: ["parameter"],
            additionalProperties: false,
          },
        },
        required: ["title", "status"],
        additionalProperties: false,
      },
    },
  },
  required: ["errors"],
  additionalProperties: false,
};

const JSON_TYPE = "application/json";

function jsonContent(schema: Json): Json {
  return { [JSON_TYPE]: { schema } };
}

const rateLimitHeaders: Json = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
};

/** An error answer: its description, titles and headers. */
function errorResponse(description: string, titles: readonly string[], headers: Json = {}): Json {
  const list = titles.map((t) => `\`${t}\``).join(", ");
  return {
    description: titles.length === 0 ? description : `${description} Title: ${list}.`,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    content: jsonContent(ref("Error")),
  };
}

/** A probe's answer: its one `status`. */
function statusSchema(status: string): Json {
  return {
    type: "object",
    properties: { status: { const: status } },
    required: ["status"],
    additionalProperties: false,
  };
}

const resetHeader: Json = {
  description: "Seconds until the window resets.",
  schema: { type: "integer" },
  required: true,
};

const BAD_REQUEST =
  "An invalid form field or query parameter (one entry each, `source.parameter` naming it), a form " +
  "that does not parse, or a request that is not valid HTTP.";
const BAD_REQUEST_TITLES = [
  TITLES.invalidField,
  TITLES.invalidQuery,
  TITLES.malformedForm,
  PROTOCOL_TITLES.badRequest,
];

const components: Json = {
  securitySchemes: {
    bearerAuth: {
      type: "http",
      scheme: "bearer",
      description:
        "An API key, issued by `notification-handlers-server keys create`, as `Authorization: Bearer <key>`.",
    },
  },
  headers: {
    "X-RateLimit-Limit": {
      description: "Requests the key may make in one 60-second window.",
      schema: { type: "integer", minimum: 1 },
    },
    "X-RateLimit-Remaining": {
      description: "Requests left in the window after this one.",
      schema: { type: "integer", minimum: 0 },
    },
  },
  parameters: {
    NotificationHandlerId: {
      name: "notification_handler_id",
      in: "path",
      required: true,
      description:
        "The handler's id, as a canonical decimal integer up to 2^53 - 1: `0003` names no handler. " +
        "Another user's handler, like an unknown id, is a 404.",
      schema: { type: "string", pattern: canonicalIntegerPattern(BigInt(MAX_ID)) },
    },
  },
  schemas: {
    HandlerId: {
      type: "integer",
      minimum: 1,
      maximum: MAX_ID,
      description: "Positive, increasing, never reused.",
    },
    HandlerType: { type: "string", enum: [...HANDLER_TYPE_NAMES] },
    ...Object.fromEntries(TEXT_LENGTHS.map((max) => [textSchemaName(max), textSchema(max)])),
    HttpUrl: urlSchema("HttpUrl"),
    HttpsUrl: urlSchema("HttpsUrl"),
    Datetime: { type: "string", pattern: DATETIME_PATTERN, description: "A UTC datetime as Y-m-d H:i:s." },
    ...Object.fromEntries(HANDLER_TYPE_NAMES.map((t) => [`${pascal(t)}Settings`, settingsSchema(t)])),
    ...Object.fromEntries(HANDLER_TYPE_NAMES.map((t) => [`${pascal(t)}Handler`, handlerSchema(t)])),
    Handler: {
      oneOf: HANDLER_TYPE_NAMES.map((t) => ref(`${pascal(t)}Handler`)),
      discriminator: {
        propertyName: "type",
        mapping: Object.fromEntries(
          HANDLER_TYPE_NAMES.map((t) => [t, `#/components/schemas/${pascal(t)}Handler`]),
        ),
      },
    },
    ...Object.fromEntries(HANDLER_TYPE_NAMES.map((t) => [`Create${pascal(t)}Form`, formSchema(t, true)])),
    // No discriminator: the server takes ` email ` for `email`, which a discriminator's mapping
    // would refuse; the type patterns keep the forms apart.
    CreateForm: { oneOf: HANDLER_TYPE_NAMES.map((t) => ref(`Create${pascal(t)}Form`)) },
    ...Object.fromEntries(HANDLER_TYPE_NAMES.map((t) => [`Update${pascal(t)}Form`, formSchema(t, false)])),
    UpdateForm: {
      description:
        "Only what is sent changes: name, is_enabled, type and the fields of one type, which is `type` " +
        `when it is sent. ${UPDATE_TYPE_RULE}`,
      anyOf: HANDLER_TYPE_NAMES.map((t) => ref(`Update${pascal(t)}Form`)),
    },
    HandlerAnswer: {
      type: "object",
      properties: { data: ref("Handler") },
      required: ["data"],
      additionalProperties: false,
    },
    IdAnswer: {
      type: "object",
      properties: {
        data: {
          type: "object",
          properties: { id: ref("HandlerId") },
          required: ["id"],
          additionalProperties: false,
        },
      },
      required: ["data"],
      additionalProperties: false,
    },
    HandlerList: {
      type: "object",
      properties: {
        data: { type: "array", items: ref("Handler") },
        meta: {
          type: "object",
          properties: {
            page: { type: "integer", minimum: 1 },
            results_per_page: { type: "integer", enum: [...RESULTS_PER_PAGE] },
            total: { type: "integer", minimum: 0, description: "Every match, on all pages." },
            total_pages: {
              type: "integer",
              minimum: 1,
              description: "max(1, ceil(total / results_per_page)).",
            },
          },
          required: ["page", "results_per_page", "total", "total_pages"],
          additionalProperties: false,
        },
        links: {
          type: "object",
          description:
            "Page URLs that repeat the request's filters, order and results_per_page and end with page=N.",
          properties: {
            first: { type: "string", format: "uri" },
            last: { type: "string", format: "uri" },
            next: { type: ["string", "null"], format: "uri" },
            prev: { type: ["string", "null"], format: "uri" },
            self: { type: "string", format: "uri" },
          },
          required: ["first", "last", "next", "prev", "self"],
          additionalProperties: false,
        },
      },
      required: ["data", "meta", "links"],
      additionalProperties: false,
    },
    Error: errorSchema,
    Health: statusSchema("ok"),
    Ready: statusSchema("ready"),
  },
  responses: {
    BadRequest: errorResponse(BAD_REQUEST, BAD_REQUEST_TITLES),
    UpdateBadRequest: errorResponse(
      `${BAD_REQUEST} Also a form whose type-specific fields do not fit the handler's current type ` +
        "(the operation's rule): one entry per field at fault, its detail `belongs to type ..., not ...` " +
        "or `is required for type ...`.",
      BAD_REQUEST_TITLES,
    ),
    Unauthorized: errorResponse(
      "The Authorization header is missing or not a Bearer key, or the key is unknown.",
      [TITLES.missingBearer, TITLES.noAccess],
    ),
    NotFound: errorResponse(
      "No such handler for this key: an unknown id, a non-canonical one, or another user's.",
      [TITLES.notFound],
      rateLimitHeaders,
    ),
    MethodNotAllowed: errorResponse("A method the path does not allow.", [TITLES.methodNotAllowed], {
      Allow: { description: "The methods the path allows.", schema: { type: "string" }, required: true },
    }),
    RequestTimeout: errorResponse(
      `The headers and body did not arrive within the server's request timeout (${DEFAULT_REQUEST_TIMEOUT / 1000} s by default); the connection is closed.`,
      [PROTOCOL_TITLES.timeout],
    ),
    PayloadTooLarge: errorResponse(`A body over ${BODY_LIMIT} bytes.`, [TITLES.payloadTooLarge]),
    UnsupportedMediaType: errorResponse("A body that is not one of the two form types.", [
      TITLES.unsupportedMediaType,
    ]),
    HeadersTooLarge: errorResponse(`Request headers over ${MAX_HEADER_SIZE} bytes.`, [
      PROTOCOL_TITLES.headersTooLarge,
    ]),
    TooManyRequests: errorResponse("The key used up its requests for this window.", [TITLES.rateLimited], {
      ...rateLimitHeaders,
      "Retry-After": resetHeader,
      "X-RateLimit-Reset": resetHeader,
    }),
    InternalError: errorResponse("A bug; the cause is in the server log only.", [TITLES.internal]),
    NotReady: errorResponse("The database does not answer, or the server is shutting down.", [
      "The service is not ready.",
    ]),
  },
};

/** The error answers every authenticated operation may give, besides its own. */
const commonErrors: Json = {
  "400": responseRef("BadRequest"),
  "401": responseRef("Unauthorized"),
  "408": responseRef("RequestTimeout"),
  "429": responseRef("TooManyRequests"),
  "431": responseRef("HeadersTooLarge"),
  "500": responseRef("InternalError"),
};

const formErrors: Json = {
  "413": responseRef("PayloadTooLarge"),
  "415": responseRef("UnsupportedMediaType"),
};

function ok(description: string, schema: Json | undefined, headers: Json = rateLimitHeaders): Json {
  return { description, headers, ...(schema === undefined ? {} : { content: jsonContent(schema) }) };
}

/**
 * `word` (upper case) as the server matches it, upper-casing the value first: any case of its ASCII
 * letters, and `ſ` (U+017F, long s), the one other character whose upper case is an ASCII letter
 * (test/unit/openapi.test.ts checks every code point).
 */
function upperCasedPattern(word: string): string {
  return anyCase(word).replaceAll("[Ss]", "[Ss\\u017F]");
}

function listParameters(): Json[] {
  const query = (name: string, schema: Json, description: string): Json => ({
    name,
    in: "query",
    required: false,
    description,
    schema,
  });
  return [
    query(
      "search",
      { type: "string" },
      "A case-insensitive substring of the name; `%` and `_` match themselves.",
    ),
    query("search_by", { type: "string", enum: ["name"], default: "name" }, "The field searched."),
    query(
      "is_enabled",
      { type: "string", pattern: BOOLEAN_PATTERN },
      "Only enabled (1, true) or disabled (0, false) handlers.",
    ),
    query("type", ref("HandlerType"), "Only handlers of this type."),
    query(
      "datetime_field",
      { type: "string", enum: ["datetime", "last_datetime"], default: "datetime" },
      "The field datetime_start and datetime_end apply to.",
    ),
    query("datetime_start", ref("Datetime"), "From this datetime, inclusive."),
    query("datetime_end", ref("Datetime"), "Up to this datetime, inclusive."),
    query(
      "order_by",
      { type: "string", enum: [...LIST_ORDER_BY], default: "notification_handler_id" },
      "The sort key; ties are broken by id in the same direction. `name` sorts case-insensitively.",
    ),
    query(
      "order_type",
      {
        type: "string",
        pattern: `^(?:${LIST_ORDER_TYPES.map(upperCasedPattern).join("|")})$`,
        default: "DESC",
      },
      "ASC or DESC, in any case.",
    ),
    // Numbers as the strings the server compares: it takes `007` for page 7, and only `10` for 10
    // results, which an integer schema cannot tell apart.
    query(
      "page",
      { type: "string", pattern: paddedIntegerPattern(BigInt(MAX_ID), String(MAX_ID).length), default: "1" },
      `A whole number from 1 to 2^53 - 1 in at most ${String(MAX_ID).length} decimal digits, leading ` +
        "zeros allowed. A page past the end is empty.",
    ),
    query(
      "results_per_page",
      { type: "string", enum: RESULTS_PER_PAGE.map(String), default: String(DEFAULT_RESULTS_PER_PAGE) },
      "The page size, written as here (`010` is refused).",
    ),
  ];
}

const COLLECTION = "/api/notification-handlers";
const probe = { security: [], tags: ["Operations"] };

/** The handlers' paths: the collection (list, create) and one handler (read, update, delete). */
function handlerPaths(): Json {
  return {
    [COLLECTION]: {
      get: {
        operationId: "listNotificationHandlers",
        tags: ["Notification handlers"],
        summary: "List handlers",
        description:
          "Default order: notification_handler_id DESC. Each parameter is optional and given at most " +
          "once; an invalid value, a repeated parameter and a parameter not listed here are each a 400 " +
          "naming it.",
        parameters: listParameters(),
        responses: { "200": ok("One page of handlers.", ref("HandlerList")), ...commonErrors },
      },
      post: {
        operationId: "createNotificationHandler",
        tags: ["Notification handlers"],
        summary: "Create a handler",
        requestBody: formBody(ref("CreateForm"), "name, type and every field of that type."),
        responses: {
          "201": ok("Created.", ref("IdAnswer")),
          ...commonErrors,
          ...formErrors,
        },
      },
    },
    [`${COLLECTION}/{notification_handler_id}`]: {
      parameters: [{ $ref: "#/components/parameters/NotificationHandlerId" }],
      get: {
        operationId: "getNotificationHandler",
        tags: ["Notification handlers"],
        summary: "Read a handler",
        responses: {
          "200": ok("The handler.", ref("HandlerAnswer")),
          "404": responseRef("NotFound"),
          ...commonErrors,
        },
      },
      post: {
        operationId: "updateNotificationHandler",
        tags: ["Notification handlers"],
        summary: "Update a handler",
        description: `Sets last_datetime. An empty form changes nothing else. ${UPDATE_TYPE_RULE}`,
        requestBody: formBody(ref("UpdateForm"), "Any of the fields."),
        responses: {
          "200": ok("Updated.", ref("IdAnswer")),
          "404": responseRef("NotFound"),
          ...commonErrors,
          "400": responseRef("UpdateBadRequest"),
          ...formErrors,
        },
      },
      delete: {
        operationId: "deleteNotificationHandler",
        tags: ["Notification handlers"],
        summary: "Delete a handler",
        responses: {
          "204": ok("Deleted; no body.", undefined),
          "404": responseRef("NotFound"),
          ...commonErrors,
        },
      },
    },
  };
}

/** The operations' paths: the probes and this document, which take no key. */
function operationPaths(): Json {
  return {
    "/healthz": {
      get: {
        operationId: "health",
        ...probe,
        summary: "Liveness: the process answers",
        responses: { "200": ok("Alive.", ref("Health"), {}) },
      },
    },
    "/readyz": {
      get: {
        operationId: "ready",
        ...probe,
        summary: "Readiness: the database answers and the server is not shutting down",
        responses: { "200": ok("Ready.", ref("Ready"), {}), "503": responseRef("NotReady") },
      },
    },
    [OPENAPI_PATH]: {
      get: {
        operationId: "openApiDocument",
        ...probe,
        summary: "This document",
        responses: {
          "200": {
            description: "The OpenAPI 3.1 document.",
            content: jsonContent({ type: "object", required: ["openapi", "info", "paths"] }),
          },
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the reference service. */
export function openApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Notification Handlers API",
      version: "1.0.0",
      description:
        "The reference Notification Handlers service (docs/api.md). Every error answer has the " +
        "`Error` shape. A method a path does not allow answers 405 with `Allow`; an unknown path answers " +
        `404. The collection paths also answer with a trailing slash (\`${COLLECTION}/\`). HEAD is ` +
        "answered wherever GET is.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: "/", description: "The server this document is served from." }],
    security: [{ bearerAuth: [] }],
    tags: [
      {
        name: "Notification handlers",
        description: "The handlers of the key's user; other users' do not exist.",
      },
      { name: "Operations", description: "Probes and this document: no key, no rate limit." },
    ],
    paths: { ...handlerPaths(), ...operationPaths() },
    components,
  };
}
