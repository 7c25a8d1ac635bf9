/**
 * The provider's configuration: its stack config keys, read with their environment fallbacks and
 * defaults from the table of settings (sdk/client/domain/settings.ts), the client a connection gets
 * under it, and how to set a missing connection. The dynamic provider (`configure()`) and the lookups
 * (the program's config) read through the same function and build their clients alike.
 */
import type { ClientOptions } from "../../sdk/client/client-options";
import {
  type Environment,
  SETTINGS,
  type Setting,
  type SettingRule,
  readSetting,
} from "../../sdk/client/domain/settings";

/**
 * The provider's settings, the table's with a configuration key, each by its name in
 * {@link ProviderSettings}; the keys, the settings' type and their reading derive from it.
 */
const PROVIDER_SETTINGS = {
  baseUrl: SETTINGS.baseUrl,
  apiKey: SETTINGS.apiKey,
  updateStrategy: SETTINGS.updateStrategy,
  /** Timeout of one request attempt, in milliseconds. */
  timeoutMs: SETTINGS.requestTimeoutMs,
  /** Retries of each request that may be retried, after the first attempt. */
  maxRetries: SETTINGS.providerMaxRetries,
} as const;

type ProviderSetting = (typeof PROVIDER_SETTINGS)[keyof typeof PROVIDER_SETTINGS];

/** A configuration key without the package's prefix, as the plugin's schema names it. */
type ShortKey<K> = K extends `${string}:${infer Short}` ? Short : never;

/** A setting's value: undefined when it is not given, unless it has a default. */
type ValueOf<S> = S extends { readonly rule: SettingRule<infer T> }
  ? S extends { readonly default: unknown }
    ? T
    : T | undefined
  : never;

/** A configuration key without the package's prefix (`notification-handlers:baseUrl` → `baseUrl`). */
export const shortKey = (configKey: string): string => configKey.slice(configKey.indexOf(":") + 1);

/** A setting of the provider: its name in ProviderSettings, its key without the prefix, the setting. */
const ENTRIES = Object.entries(PROVIDER_SETTINGS).map(
  ([name, setting]: [string, Setting<unknown> & { configKey: string }]) => ({
    name,
    key: shortKey(setting.configKey),
    setting,
  }),
);

/** Stack configuration keys of the provider, by the key without the package's prefix. */
export const CONFIG_KEYS = Object.fromEntries(
  ENTRIES.map(({ key, setting }) => [key, setting.configKey]),
) as {
  readonly [S in ProviderSetting as ShortKey<S["configKey"]>]: S["configKey"];
};

/** What the provider is configured with; the connection may still be missing. */
export type ProviderSettings = {
  -readonly [N in keyof typeof PROVIDER_SETTINGS]: ValueOf<(typeof PROVIDER_SETTINGS)[N]>;
};

/** A complete connection to one site. */
export interface Connection {
  baseUrl: string;
  apiKey: string;
}

/** Reads a config key; an empty value counts as unset. */
export type ConfigGetter = (key: string) => string | undefined;

/** A setting's value from its config key, else its environment variable, else its default. */
const read = ({ setting }: (typeof ENTRIES)[number], get: ConfigGetter, env: Environment): unknown =>
  readSetting(setting, { name: setting.configKey, value: get(setting.configKey), env });

/** The settings from stack config, each key falling back to its environment variable, then its default. */
export function readSettings(get: ConfigGetter, env: Environment = process.env): ProviderSettings {
  return Object.fromEntries(ENTRIES.map((entry) => [entry.name, read(entry, get, env)])) as ProviderSettings;
}

/** A failed configuration check: the key (without the namespace) and the rule it breaks. */
export interface SettingFailure {
  key: keyof typeof CONFIG_KEYS;
  reason: string;
}

/** Every setting that breaks its rule, each named, where {@link readSettings} stops at the first. */
export function settingsFailures(get: ConfigGetter, env: Environment = process.env): SettingFailure[] {
  const failures: SettingFailure[] = [];
  for (const entry of ENTRIES) {
    try {
      read(entry, get, env);
    } catch (error) {
      failures.push({ key: entry.key as SettingFailure["key"], reason: (error as Error).message });
    }
  }
  return failures;
}

/** The options of a connection's client under these settings: the provider's and the lookups' alike. */
export function clientOptions(
  connection: Connection,
  settings: ProviderSettings,
): Required<Pick<ClientOptions, "baseURL" | "apiKey" | "timeout" | "maxRetries">> {
  return {
    baseURL: connection.baseUrl,
    apiKey: connection.apiKey,
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
  };
}

/** The connection, or an error that says how to configure what is missing. */
export function requireConnection(settings: Pick<ProviderSettings, "baseUrl" | "apiKey">): Connection {
  const { baseUrl, apiKey } = settings;
  if (apiKey === undefined) throw missing("API key", `--secret ${CONFIG_KEYS.apiKey} <key>`, SETTINGS.apiKey);
  if (baseUrl === undefined)
    throw missing("base URL", `${CONFIG_KEYS.baseUrl} https://example.com`, SETTINGS.baseUrl);
  return { baseUrl, apiKey };
}

/** The error of a missing part of the connection: the command and the variable that set it. */
function missing(what: string, command: string, setting: { env: string }): Error {
  return new Error(
    `No ${what} for the Notification Handlers API. Set it with \`pulumi config set ${command}\` ` +
      `or the ${setting.env} environment variable.`,
  );
}
