/**
 * The provider's configuration: its stack config keys, read with their environment fallbacks and
 * defaults from the table of settings (sdk/client/domain/settings.ts), the client a connection gets under it, and
 * the message that says how to set a missing connection. The dynamic provider (`configure()`) and the
 * lookups (the program's config) read through the same function and build their clients alike.
 */
import type { ClientOptions } from "../../sdk/client/client-options";
import {
  type Environment,
  SETTINGS,
  type Setting,
  type UpdateStrategy,
  readSetting,
} from "../../sdk/client/domain/settings";

/** Stack configuration keys of the provider. */
export const CONFIG_KEYS = {
  baseUrl: SETTINGS.baseUrl.configKey,
  apiKey: SETTINGS.apiKey.configKey,
  updateStrategy: SETTINGS.updateStrategy.configKey,
  requestTimeoutMs: SETTINGS.requestTimeoutMs.configKey,
  maxRetries: SETTINGS.providerMaxRetries.configKey,
} as const;

/** What the provider is configured with; the connection may still be missing. */
export interface ProviderSettings {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  updateStrategy: UpdateStrategy;
  /** Timeout of one request attempt, in milliseconds. */
  timeoutMs: number;
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

/** Each setting of the provider, by its name in {@link CONFIG_KEYS}. */
const PROVIDER_SETTINGS = {
  baseUrl: SETTINGS.baseUrl,
  apiKey: SETTINGS.apiKey,
  updateStrategy: SETTINGS.updateStrategy,
  requestTimeoutMs: SETTINGS.requestTimeoutMs,
  maxRetries: SETTINGS.providerMaxRetries,
} as const;

/** Where a setting of the provider is read from: its config key, then its environment variable. */
const from = <T>(setting: Setting<T> & { configKey: string }, get: ConfigGetter, env: Environment) => ({
  name: setting.configKey,
  value: get(setting.configKey),
  env,
});

/** The settings from stack config, each key falling back to its environment variable, then its default. */
export function readSettings(get: ConfigGetter, env: Environment = process.env): ProviderSettings {
  const { baseUrl, apiKey, updateStrategy, requestTimeoutMs, maxRetries } = PROVIDER_SETTINGS;
  return {
    baseUrl: readSetting(baseUrl, from(baseUrl, get, env)),
    apiKey: readSetting(apiKey, from(apiKey, get, env)),
    updateStrategy: readSetting(updateStrategy, from(updateStrategy, get, env)),
    timeoutMs: readSetting(requestTimeoutMs, from(requestTimeoutMs, get, env)),
    maxRetries: readSetting(maxRetries, from(maxRetries, get, env)),
  };
}

/** A failed configuration check: the key (without the namespace) and the rule it breaks. */
export interface SettingFailure {
  key: keyof typeof CONFIG_KEYS;
  reason: string;
}

/** Every setting that breaks its rule, each named, where {@link readSettings} stops at the first. */
export function settingsFailures(get: ConfigGetter, env: Environment = process.env): SettingFailure[] {
  const failures: SettingFailure[] = [];
  for (const [key, setting] of Object.entries(PROVIDER_SETTINGS)) {
    try {
      const checked = setting as Setting<unknown> & { configKey: string };
      readSetting(checked, from(checked, get, env));
    } catch (error) {
      failures.push({ key: key as SettingFailure["key"], reason: (error as Error).message });
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
  if (apiKey === undefined) {
    throw new Error(
      "No API key for the Notification Handlers API. Set it with " +
        `\`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` ` +
        `or the ${SETTINGS.apiKey.env} environment variable.`,
    );
  }
  if (baseUrl === undefined) {
    throw new Error(
      "No base URL for the Notification Handlers API. Set it with " +
        `\`pulumi config set ${CONFIG_KEYS.baseUrl} https://example.com\` ` +
        `or the ${SETTINGS.baseUrl.env} environment variable.`,
    );
  }
  return { baseUrl, apiKey };
}
