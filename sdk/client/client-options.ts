/**
 * What `new NotificationHandlersClient()` takes: its options, the environment variables and defaults
 * behind them, and the check that turns them into a base URL, a key, a timeout and a retry count.
 */

import type { Dispatcher } from "undici";
import { MissingConfigurationError } from "./core/errors";
import { type Environment, SETTINGS, type SettingSource, readSetting } from "./domain/settings";

/** Environment variable read when `baseURL` is not given. */
export const BASE_URL_ENV = SETTINGS.baseUrl.env;
/** Environment variable read when `apiKey` is not given. */
export const API_KEY_ENV = SETTINGS.apiKey.env;

/** Where the client writes what it does (any method may be left out); never given credentials. */
export interface Logger {
  /** One line per attempt. */
  debug?(message: string): void;
  /** Waits for the rate-limit window. */
  info?(message: string): void;
  /** Retries. */
  warn?(message: string): void;
  /** Not used by the client today; accepted so a console-like logger fits. */
  error?(message: string): void;
}

/** Options of `new NotificationHandlersClient()`. */
export interface ClientOptions {
  /** Site address, with or without a path prefix and trailing `/`. Default: env NOTIFICATION_HANDLERS_BASE_URL. */
  baseURL?: string | undefined;
  /** API key sent as `Authorization: Bearer <key>`. Default: env NOTIFICATION_HANDLERS_API_KEY. */
  apiKey?: string | undefined;
  /** Timeout of one attempt (connect, send, read the whole answer), in milliseconds. Default: env NOTIFICATION_HANDLERS_TIMEOUT_MS, else 30 000. */
  timeout?: number | undefined;
  /** Retries after the first attempt, for the failures that may be retried. Default 2. */
  maxRetries?: number | undefined;
  /** An undici dispatcher to use instead of the client's own keep-alive `Agent` (not closed by `close()`). */
  dispatcher?: Dispatcher | undefined;
  /** Waits `ms` milliseconds; injectable so tests never really wait. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
  /** The clock, in milliseconds; injectable with `sleep`. */
  now?: (() => number) | undefined;
  /** A number in [0, 1) for backoff jitter. */
  random?: (() => number) | undefined;
  /** Receives one line per attempt (debug) and per retry or pacing wait (warn/debug). */
  logger?: Logger | undefined;
  /**
   * Length of the server's rate-limit window, which answers do not say. Default: env
   * NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS, else 60 000 (60 s), the window of every deployed site.
   */
  rateLimitWindowMs?: number | undefined;
  /** Margin added to every rate-limit reset estimate. Default 1 000 (1 s). */
  rateLimitSafetyMs?: number | undefined;
  /** Extra headers sent with every request (an `authorization` entry is ignored). */
  defaultHeaders?: Record<string, string> | undefined;
}

/** The options every client needs, checked and defaulted. */
export interface CheckedOptions {
  /** The base URL, normalized to end with `/`. */
  baseURL: string;
  apiKey: string;
  timeout: number;
  maxRetries: number;
  rateLimitWindowMs: number;
}

/**
 * Takes each option, else its environment variable (from `env`), else its default, and checks it with
 * its rule (sdk/settings.ts); throws a `MissingConfigurationError` saying what is missing or malformed.
 */
export function checkOptions(options: ClientOptions, env: Environment = process.env): CheckedOptions {
  const fail = MissingConfigurationError;
  const from = <T>(option: keyof ClientOptions, value: T | undefined): SettingSource<T> => ({
    name: `\`${option}\``,
    value,
    env,
  });
  const baseURL = readSetting(SETTINGS.baseUrl, from("baseURL", options.baseURL), fail);
  if (baseURL === undefined) {
    throw new MissingConfigurationError(
      `No base URL: pass the \`baseURL\` option to new NotificationHandlersClient() or set the ${BASE_URL_ENV} environment variable.`,
    );
  }
  const apiKey = readSetting(SETTINGS.apiKey, from("apiKey", options.apiKey), fail);
  if (apiKey === undefined) {
    throw new MissingConfigurationError(
      `No API key: pass the \`apiKey\` option to new NotificationHandlersClient() or set the ${API_KEY_ENV} environment variable.`,
    );
  }
  return {
    baseURL: withTrailingSlash(baseURL),
    apiKey,
    timeout: readSetting(SETTINGS.requestTimeoutMs, from("timeout", options.timeout), fail),
    maxRetries: readSetting(SETTINGS.clientMaxRetries, from("maxRetries", options.maxRetries), fail),
    rateLimitWindowMs: readSetting(
      SETTINGS.rateLimitWindowMs,
      from("rateLimitWindowMs", options.rateLimitWindowMs),
      fail,
    ),
  };
}

/** Adds the trailing `/` that makes relative paths resolve under a path prefix; drops query and fragment. */
function withTrailingSlash(checked: string): string {
  const url = new URL(checked);
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.toString();
}
