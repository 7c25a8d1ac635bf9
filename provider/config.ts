/**
 * The provider's configuration: its stack config keys, their environment fallbacks, and the message
 * that says how to set a missing one. The dynamic provider (`configure()`) and the lookups (the
 * program's config) read through the same function.
 */
import { API_KEY_ENV, BASE_URL_ENV, TIMEOUT_ENV } from "../sdk/client-options";
import { UPDATE_STRATEGIES, type UpdateStrategy } from "./inputs";

/** Stack configuration keys of the provider. */
export const CONFIG_KEYS = {
  baseUrl: "notification-handlers:baseUrl",
  apiKey: "notification-handlers:apiKey",
  updateStrategy: "notification-handlers:updateStrategy",
  requestTimeoutMs: "notification-handlers:requestTimeoutMs",
  maxRetries: "notification-handlers:maxRetries",
} as const;

/** The environment variable behind `notification-handlers:maxRetries`. */
export const MAX_RETRIES_ENV = "NOTIFICATION_HANDLERS_MAX_RETRIES";

/** Retries of each request by default: enough to ride out a flaky server (a fifth of requests failing). */
export const DEFAULT_MAX_RETRIES = 6;

/** What the provider is configured with; the connection may still be missing. */
export interface ProviderSettings {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  updateStrategy: UpdateStrategy;
  /** Timeout of one request attempt, in milliseconds; the client's default (30 s) when undefined. */
  timeoutMs: number | undefined;
  /** Retries of each request that may be retried, after the first attempt. */
  maxRetries: number;
}

/** A complete connection to one site. */
export interface Connection {
  baseUrl: string;
  apiKey: string;
}

/** Reads a config key; an empty value counts as unset. */
export type ConfigGetter = (key: string) => string | undefined;

const nonBlank = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value;

/** The settings from stack config, each key falling back to its environment variable. */
export function readSettings(get: ConfigGetter): ProviderSettings {
  return {
    baseUrl: nonBlank(get(CONFIG_KEYS.baseUrl)) ?? nonBlank(process.env[BASE_URL_ENV]),
    apiKey: nonBlank(get(CONFIG_KEYS.apiKey)) ?? nonBlank(process.env[API_KEY_ENV]),
    updateStrategy: CHECKED_SETTINGS.updateStrategy(get) ?? "in-place",
    timeoutMs: CHECKED_SETTINGS.requestTimeoutMs(get),
    maxRetries: CHECKED_SETTINGS.maxRetries(get) ?? DEFAULT_MAX_RETRIES,
  };
}

/** A failed configuration check: the key (without the namespace) and the rule it breaks. */
export interface SettingFailure {
  key: keyof typeof CONFIG_KEYS;
  reason: string;
}

/** Every setting that breaks its rule, each named, where {@link readSettings} stops at the first. */
export function settingsFailures(get: ConfigGetter): SettingFailure[] {
  const failures: SettingFailure[] = [];
  for (const [key, read] of Object.entries(CHECKED_SETTINGS)) {
    try {
      read(get);
    } catch (error) {
      failures.push({ key: key as SettingFailure["key"], reason: (error as Error).message });
    }
  }
  return failures;
}

/** The settings with a rule, each read (and checked) on its own; each throws naming its key and rule. */
const CHECKED_SETTINGS = {
  updateStrategy: (get: ConfigGetter): UpdateStrategy | undefined => {
    const strategy = nonBlank(get(CONFIG_KEYS.updateStrategy));
    if (strategy !== undefined && !UPDATE_STRATEGIES.includes(strategy as UpdateStrategy)) {
      throw new Error(
        `${CONFIG_KEYS.updateStrategy} must be one of ${UPDATE_STRATEGIES.map((s) => `"${s}"`).join(", ")} (got ${JSON.stringify(strategy)})`,
      );
    }
    return strategy as UpdateStrategy | undefined;
  },
  requestTimeoutMs: (get: ConfigGetter): number | undefined =>
    wholeNumber(get, CONFIG_KEYS.requestTimeoutMs, TIMEOUT_ENV, 1, "milliseconds"),
  maxRetries: (get: ConfigGetter): number | undefined =>
    wholeNumber(get, CONFIG_KEYS.maxRetries, MAX_RETRIES_ENV, 0, "retries"),
} as const;

/** A whole-number setting of at least `min`, from its config key or else its environment variable. */
function wholeNumber(
  get: ConfigGetter,
  key: string,
  env: string,
  min: 0 | 1,
  unit: string,
): number | undefined {
  const value = nonBlank(get(key)) ?? nonBlank(process.env[env]);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min) {
    const kind = min === 0 ? "a whole number" : "a positive whole number";
    throw new Error(`${key} (or ${env}) must be ${kind} of ${unit} (got ${JSON.stringify(value)})`);
  }
  return Number(value);
}

/** The connection, or an error that says how to configure what is missing. */
export function requireConnection(settings: Pick<ProviderSettings, "baseUrl" | "apiKey">): Connection {
  const { baseUrl, apiKey } = settings;
  if (apiKey === undefined) {
    throw new Error(
      "No API key for the Notification Handlers API. Set it with " +
        `\`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` ` +
        `or the ${API_KEY_ENV} environment variable.`,
    );
  }
  if (baseUrl === undefined) {
    throw new Error(
      "No base URL for the Notification Handlers API. Set it with " +
        `\`pulumi config set ${CONFIG_KEYS.baseUrl} https://example.com\` ` +
        `or the ${BASE_URL_ENV} environment variable.`,
    );
  }
  return { baseUrl, apiKey };
}
