/**
 * The one table of settings: what the client and the provider are configured with, each with its
 * Pulumi configuration key, environment variable, default, rule and description. The client's
 * option check, the provider's configuration, the lookups and the docs' tables (README.md,
 * docs/provider.md#configuration) all derive from it; {@link readSetting} is the one reading.
 */
import { withoutCredentials } from "../core/redaction";

/** How a change that the API could apply in place is carried out. */
export const UPDATE_STRATEGIES = ["in-place", "replace"] as const;
/** One of {@link UPDATE_STRATEGIES}. */
export type UpdateStrategy = (typeof UPDATE_STRATEGIES)[number];

/** What values a setting accepts. */
export interface SettingRule<T> {
  /** The rule in words, as it follows "must be" in a message. */
  readonly description: string;
  /** The value of text from config or the environment, or of a value given in code; undefined when refused. */
  parse(raw: string | T): T | undefined;
}

/** One setting: where it is read from, what it accepts, what it defaults to. */
export interface Setting<T> {
  /** The provider's Pulumi configuration key, when the provider reads it. */
  readonly configKey?: string;
  /** The environment variable read when neither the option nor the configuration key gives it. */
  readonly env?: string;
  readonly default?: T;
  readonly rule: SettingRule<T>;
  /** A credential: never shown in a message or a table. */
  readonly secret: boolean;
  /** One line for the docs' tables. */
  readonly description: string;
}

const text: SettingRule<string> = {
  description: "non-blank text",
  parse: (raw) => (raw.trim() === "" ? undefined : raw.trim()),
};

const httpUrl: SettingRule<string> = {
  description: "an absolute http or https URL",
  parse(raw) {
    const url = raw.trim();
    if (!URL.canParse(url)) return undefined;
    const { protocol } = new URL(url);
    return protocol === "http:" || protocol === "https:" ? url : undefined;
  },
};

/** Whole numbers from `min` up, given as digits or as a number. */
function wholeNumber(min: 0 | 1, unit: string): SettingRule<number> {
  return {
    description: `${min === 0 ? "a whole number" : "a positive whole number"} of ${unit}`,
    parse(raw) {
      const value = typeof raw === "number" ? raw : /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
      return Number.isSafeInteger(value) && value >= min ? value : undefined;
    },
  };
}

/** One of `values`, as written. */
function oneOf<V extends string>(values: readonly V[]): SettingRule<V> {
  return {
    description: `one of ${values.map((v) => `"${v}"`).join(", ")}`,
    parse: (raw) => values.find((v) => v === raw.trim()),
  };
}

/** Every setting, by name. Where the client and the provider default differently, each has its own. */
export const SETTINGS = {
  baseUrl: {
    configKey: "notification-handlers:baseUrl",
    env: "NOTIFICATION_HANDLERS_BASE_URL",
    rule: httpUrl,
    secret: false,
    description: "the site's address, with or without a path prefix",
  },
  apiKey: {
    configKey: "notification-handlers:apiKey",
    env: "NOTIFICATION_HANDLERS_API_KEY",
    rule: text,
    secret: true,
    description: "the account's API key: set it with `--secret`",
  },
  updateStrategy: {
    configKey: "notification-handlers:updateStrategy",
    default: "in-place",
    rule: oneOf(UPDATE_STRATEGIES),
    secret: false,
    description: "how every resource without its own `updateStrategy` applies a change",
  },
  requestTimeoutMs: {
    configKey: "notification-handlers:requestTimeoutMs",
    env: "NOTIFICATION_HANDLERS_TIMEOUT_MS",
    default: 30_000, // 30 s
    rule: wholeNumber(1, "milliseconds"),
    secret: false,
    description: "one request attempt's timeout in ms: connect, send, read the whole answer",
  },
  clientMaxRetries: {
    default: 2,
    rule: wholeNumber(0, "retries"),
    secret: false,
    description: "the client's retries of a request that may be retried",
  },
  providerMaxRetries: {
    configKey: "notification-handlers:maxRetries",
    env: "NOTIFICATION_HANDLERS_MAX_RETRIES",
    // Enough to ride out a flaky server (a fifth of requests failing).
    default: 6,
    rule: wholeNumber(0, "retries"),
    secret: false,
    description: "the provider's retries of a request that may be retried; 0 fails at once",
  },
  rateLimitWindowMs: {
    env: "NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS",
    // Every deployed site's window and the reference server's (docs/api.md#rate-limit).
    default: 60_000, // 60 s
    rule: wholeNumber(1, "milliseconds"),
    secret: false,
    description: "the length of the server's rate-limit window in ms, which answers do not say",
  },
} as const satisfies Record<string, Setting<string> | Setting<number>>;

/** Where environment variables are read: `process.env` unless a caller (a test) passes its own. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Where a reader found a setting's value before the environment, and how to name it in a message. */
export interface SettingSource<T> {
  /** The option or configuration key, as a message names it. */
  name: string;
  /** Its value, if given (blank text counts as unset). */
  value: string | T | undefined;
  env: Environment;
}

/**
 * A setting's value: the source's, else its environment variable's, else its default; blank text
 * counts as unset. A value that breaks the rule throws `fail`, naming the source, the variable and
 * the rule (a secret's value is never shown).
 */
export function readSetting<T>(
  setting: Setting<T> & { readonly default: T },
  source: SettingSource<T>,
  fail?: new (message: string) => Error,
): T;
export function readSetting<T>(
  setting: Setting<T>,
  source: SettingSource<T>,
  fail?: new (message: string) => Error,
): T | undefined;
export function readSetting<T>(
  setting: Setting<T>,
  source: SettingSource<T>,
  fail: new (message: string) => Error = Error,
): T | undefined {
  const raw = unlessBlank(source.value) ?? unlessBlank(setting.env && source.env[setting.env]);
  if (raw === undefined) return setting.default;
  const value = setting.rule.parse(raw);
  if (value !== undefined) return value;
  const where = setting.env === undefined ? source.name : `${source.name} (or ${setting.env})`;
  const shown = setting.secret ? "[secret]" : JSON.stringify(withoutCredentials(String(raw)));
  throw new fail(`${where} must be ${setting.rule.description} (got ${shown})`);
}

/** Blank text is unset: an empty config value or variable means "not given". */
function unlessBlank<T>(value: string | T | undefined): string | T | undefined {
  return typeof value === "string" && value.trim() === "" ? undefined : value;
}
