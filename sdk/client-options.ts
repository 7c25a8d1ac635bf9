/**
 * What `new NotificationHandlersClient()` takes: its options, the environment variables and defaults
 * behind them, and the check that turns them into a base URL, a key, a timeout and a retry count.
 */

import type { Dispatcher } from "undici";
import { MissingConfigurationError } from "./errors";
import { RATE_LIMIT_WINDOW_MS } from "./rate-limit";
import { withoutCredentials } from "./redaction";

/** Environment variable read when `baseURL` is not given. */
export const BASE_URL_ENV = "NOTIFICATION_HANDLERS_BASE_URL";
/** Environment variable read when `apiKey` is not given. */
export const API_KEY_ENV = "NOTIFICATION_HANDLERS_API_KEY";
/** Environment variable read when `timeout` is not given: milliseconds per attempt. */
export const TIMEOUT_ENV = "NOTIFICATION_HANDLERS_TIMEOUT_MS";
/** Environment variable read when `rateLimitWindowMs` is not given. */
const RATE_LIMIT_WINDOW_ENV = "NOTIFICATION_HANDLERS_RATE_LIMIT_WINDOW_MS";

/** Default timeout of one attempt, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000; // 30 s
/** Default number of retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 2;

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
 * Takes the base URL, key and timeout from the options, else from the environment, and checks them
 * with the retry count; throws a `MissingConfigurationError` saying what is missing or malformed.
 */
export function checkOptions(options: ClientOptions): CheckedOptions {
  const baseURL = options.baseURL ?? process.env[BASE_URL_ENV];
  if (baseURL === undefined || baseURL.trim() === "") {
    throw new MissingConfigurationError(
      `No base URL: pass the \`baseURL\` option to new NotificationHandlersClient() or set the ${BASE_URL_ENV} environment variable.`,
    );
  }
  const apiKey = options.apiKey ?? process.env[API_KEY_ENV];
  if (apiKey === undefined || apiKey.trim() === "") {
    throw new MissingConfigurationError(
      `No API key: pass the \`apiKey\` option to new NotificationHandlersClient() or set the ${API_KEY_ENV} environment variable.`,
    );
  }
  const normalizedBaseURL = normalizeBaseURL(baseURL.trim());

  const timeout = options.timeout ?? numberFromEnv(TIMEOUT_ENV) ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!(timeout > 0))
    throw new MissingConfigurationError(
      `\`timeout\` (or ${TIMEOUT_ENV}) must be a positive number of milliseconds.`,
    );
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new MissingConfigurationError("`maxRetries` must be a non-negative integer.");
  }
  const rateLimitWindowMs =
    options.rateLimitWindowMs ?? numberFromEnv(RATE_LIMIT_WINDOW_ENV) ?? RATE_LIMIT_WINDOW_MS;
  if (!(rateLimitWindowMs > 0))
    throw new MissingConfigurationError(
      `\`rateLimitWindowMs\` (or ${RATE_LIMIT_WINDOW_ENV}) must be a positive number of milliseconds.`,
    );
  return { baseURL: normalizedBaseURL, apiKey: apiKey.trim(), timeout, maxRetries, rateLimitWindowMs };
}

/** A number the environment sets, if any (NaN when malformed, which `checkOptions` rejects). */
function numberFromEnv(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : Number(raw);
}

/** Adds the trailing `/` that makes relative paths resolve under a path prefix; rejects non-http URLs. */
function normalizeBaseURL(raw: string): string {
  if (!URL.canParse(raw)) {
    throw new MissingConfigurationError(
      `The base URL ${JSON.stringify(withoutCredentials(raw))} is not an absolute URL (expected https://host[/prefix]).`,
    );
  }
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new MissingConfigurationError(`The base URL must use http or https, not ${url.protocol}`);
  }
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.toString();
}
