/**
 * `NotificationHandlersClient`: the one place that owns transport (an undici `Agent` with keep-alive),
 * the base URL, the Authorization header, timeouts, retries and rate-limit pacing. Resource classes
 * describe requests; this class sends them.
 */

import { inspect } from "node:util";
import { Agent, type Dispatcher } from "undici";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  CreateOutcomeUnknownError,
  MissingConfigurationError,
  makeAPIError,
  redactURL,
  retryAfterSeconds,
  type ResponseHeaders,
} from "./errors";
import { parseJSONKeepingBigIntegers } from "./json";
import type { FormBody } from "./multipart";
import { RateLimitPacer, type PacerState } from "./rate-limit";
import { NotificationHandlers } from "./resources/notification-handlers";

/** Environment variable read when `baseURL` is not given. */
export const BASE_URL_ENV = "NOTIFICATION_HANDLERS_BASE_URL";
/** Environment variable read when `apiKey` is not given. */
export const API_KEY_ENV = "NOTIFICATION_HANDLERS_API_KEY";
/** Environment variable read when `timeout` is not given: milliseconds per attempt. */
export const TIMEOUT_ENV = "NOTIFICATION_HANDLERS_TIMEOUT_MS";

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
  /** Length of the server's rate-limit window when it does not say. Default 60 000 (60 s). */
  rateLimitWindowMs?: number | undefined;
  /** Margin added to every rate-limit reset estimate. Default 1 000 (1 s). */
  rateLimitSafetyMs?: number | undefined;
  /** Extra headers sent with every request (an `authorization` entry is ignored). */
  defaultHeaders?: Record<string, string> | undefined;
}

/** Per-call overrides. */
export interface RequestOptions {
  timeout?: number | undefined;
  maxRetries?: number | undefined;
}

/** Counters for observability. */
export interface ClientStats {
  /** HTTP attempts sent (retries included). */
  requests: number;
  /** Attempts that were retries. */
  retries: number;
  /** Milliseconds spent waiting for the rate-limit window (pacing and 429s). */
  pacedMs: number;
  /** 429 answers received (pacing keeps this at 0 in normal use). */
  rateLimited: number;
  /** Milliseconds spent in backoff between retries. */
  backoffMs: number;
}

/** How a request may be retried. */
export type RetryMode =
  /** Safe to repeat: retried on connection errors, timeouts, 429 and 5xx. */
  | "idempotent"
  /** A create: retried only when it certainly did not reach the server (connect failed) or on 429. */
  | "create";

/** A request as the resource classes describe it. @internal */
export interface APIRequest {
  method: "GET" | "POST" | "DELETE";
  /** Path relative to the base URL, without a leading `/`. */
  path: string;
  query?: Record<string, string> | undefined;
  body?: FormBody | undefined;
  retry: RetryMode;
  /** A delete retried after an attempt that may have succeeded treats a 404 as success. */
  notFoundAfterRetryIsSuccess?: boolean | undefined;
  /** The collection path (list, create): a 404 there means there is no API at the base URL. */
  collection?: boolean | undefined;
  options?: RequestOptions | undefined;
}

/** A successful answer. @internal */
export interface APIResponse {
  status: number;
  headers: ResponseHeaders;
  /** Parsed JSON, or `undefined` for an empty body. */
  body: unknown;
  method: string;
  path: string;
}

// The key lives here, keyed by client, so it is in no property of the client: util.inspect (even with
// showHidden), JSON.stringify and Pulumi's closure serialization cannot reach it through the object.
const apiKeys = new WeakMap<object, string>();

const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Whether a transport error certainly happened before any byte of the request was written. */
function certainlyNotSent(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (NOT_SENT_CODES.has(code) || code.startsWith("ERR_TLS_"))) return true;
  // Happy-eyeballs connects fail with an AggregateError of one error per address.
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.every(certainlyNotSent);
  return false;
}

class TimeoutMarker extends Error {}

const MAX_HONOURED_RETRY_AFTER_MS = 300_000; // 5 min: a longer wait is reported, not slept through
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;
const MAX_BODY_CHARS_IN_TEXT = 2_000;

function lowerCaseHeaders(raw: Record<string, string | string[] | undefined>): ResponseHeaders {
  const out: ResponseHeaders = {};
  // for...in rather than Object.entries: no pair arrays on every answer. undici's header objects
  // carry only own keys.
  for (const name in raw) {
    const value = raw[name];
    const key = name.toLowerCase();
    if (value === undefined || key === "authorization" || key === "set-cookie" || key === "cookie") continue;
    out[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function isJSONContentType(headers: ResponseHeaders): boolean {
  const type = headers["content-type"]?.toLowerCase() ?? "";
  return type.includes("json");
}

/** The client of the Notification Handlers API. */
export class NotificationHandlersClient {
  /** The base URL, normalized to end with `/` (credentials in it removed from messages). */
  readonly baseURL: string;
  /** Timeout of one attempt, in milliseconds. */
  readonly timeout: number;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Counters: requests sent, retries, time paced and backed off, 429s received. */
  readonly stats: ClientStats = { requests: 0, retries: 0, pacedMs: 0, rateLimited: 0, backoffMs: 0 };
  /** `list`, `retrieve`, `create`, `update`, `delete`. */
  readonly notificationHandlers: NotificationHandlers;

  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly logger: Logger | undefined;
  private readonly pacer: RateLimitPacer;
  private readonly defaultHeaders: Record<string, string>;
  /** `baseURL`'s scheme, host and port (no credentials), as undici's dispatcher takes it. */
  private readonly origin: string;
  /** `baseURL`'s path, ending with `/`; request paths are appended to it. */
  private readonly basePath: string;
  private closed = false;

  constructor(options: ClientOptions = {}) {
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
    this.baseURL = normalizeBaseURL(baseURL.trim());
    const parsedBase = new URL(this.baseURL);
    this.origin = parsedBase.origin;
    this.basePath = parsedBase.pathname;
    apiKeys.set(this, apiKey.trim());

    this.timeout = options.timeout ?? timeoutFromEnv() ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(this.timeout > 0))
      throw new MissingConfigurationError(
        `\`timeout\` (or ${TIMEOUT_ENV}) must be a positive number of milliseconds.`,
      );
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) {
      throw new MissingConfigurationError("`maxRetries` must be a non-negative integer.");
    }
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    this.defaultHeaders = Object.fromEntries(
      Object.entries(options.defaultHeaders ?? {}).filter(([name]) => name.toLowerCase() !== "authorization"),
    );
    this.pacer = new RateLimitPacer({
      now: this.now,
      sleep: this.sleep,
      windowMs: options.rateLimitWindowMs ?? 60_000,
      safetyMs: options.rateLimitSafetyMs ?? 1_000,
    });
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      // Keep-alive reuse: a provider run makes many small calls to one host.
      this.dispatcher = new Agent({ keepAliveTimeout: 4_000, connect: { timeout: 10_000 } });
      this.ownsDispatcher = true;
    }
    this.notificationHandlers = new NotificationHandlers(this);

    // Keep internals out of enumeration (and out of JSON and util.inspect); the key is not here at all.
    for (const name of [
      "dispatcher",
      "ownsDispatcher",
      "sleep",
      "now",
      "random",
      "logger",
      "pacer",
      "origin",
      "basePath",
    ]) {
      Object.defineProperty(this, name, { enumerable: false });
    }
  }

  /** What the rate-limit pacer currently believes. */
  rateLimitState(): PacerState {
    return this.pacer.state();
  }

  /** Closes the client's own connections (a dispatcher passed in options is left open). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Shown by util.inspect and console.log: never the key. */
  [inspect.custom](): string {
    return `NotificationHandlersClient { baseURL: ${JSON.stringify(redactURL(this.baseURL))}, timeout: ${this.timeout}, maxRetries: ${this.maxRetries} }`;
  }

  /** JSON view: configuration and counters, never the key. */
  toJSON(): { baseURL: string; timeout: number; maxRetries: number; stats: ClientStats } {
    return {
      baseURL: redactURL(this.baseURL),
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      stats: this.stats,
    };
  }

  /**
   * Sends a request with pacing, timeout and the retry policy; resolves to a 2xx answer or throws a
   * typed error. @internal (used by the resource classes)
   */
  async request(req: APIRequest): Promise<APIResponse> {
    if (this.closed) throw new MissingConfigurationError("The client is closed.");
    // The path is built as a string, not resolved with `new URL` and handed to undici to take apart
    // again: request paths are ours (fixed segments and encodeURIComponent'd ids) and the base path
    // is already normalized, so nothing needs resolving. The query is encoded as URLSearchParams does.
    const search = req.query === undefined ? "" : new URLSearchParams(req.query).toString();
    const info = {
      method: req.method,
      path: `${this.basePath}${req.path}${search === "" ? "" : `?${search}`}`,
    };
    const maxRetries = req.options?.maxRetries ?? this.maxRetries;
    const timeout = req.options?.timeout ?? this.timeout;
    let retries = 0;
    // Whether an earlier attempt may have been applied by the server (for delete's 404-after-retry).
    let maybeApplied = false;

    for (;;) {
      // Most requests need no wait: tryAcquire() spares them acquire()'s promise and its await.
      const paced = this.pacer.tryAcquire() ? 0 : await this.pacer.acquire();
      if (paced > 0) {
        this.stats.pacedMs += paced;
        this.logger?.info?.(`${info.method} ${info.path}: waited ${paced} ms for the rate-limit window`);
      }
      this.stats.requests++;
      if (retries > 0) this.stats.retries++;
      const started = this.now();
      let outcome: { status: number; headers: ResponseHeaders; text: string };
      try {
        outcome = await this.send(req, timeout, info);
      } catch (err) {
        this.pacer.release();
        if (!(err instanceof APIConnectionError)) throw err;
        const notSent = !(err instanceof APIConnectionTimeoutError) && certainlyNotSent(err.cause);
        const canRetry = retries < maxRetries && (req.retry === "idempotent" || notSent);
        if (!canRetry) {
          if (req.retry === "create" && !notSent) throw new CreateOutcomeUnknownError(info, { cause: err });
          throw err;
        }
        if (!notSent) maybeApplied = true;
        const delay = this.backoff(retries);
        this.logger?.warn?.(
          `${err.message}; retrying in ${delay} ms (retry ${retries + 1} of ${maxRetries})`,
        );
        await this.wait(delay);
        retries++;
        continue;
      }

      const receivedAt = this.now();
      this.pacer.observe(outcome.status, outcome.headers, receivedAt);
      this.pacer.release();
      if (outcome.status === 429) this.stats.rateLimited++;
      this.logger?.debug?.(`${info.method} ${info.path} -> ${outcome.status} in ${receivedAt - started} ms`);

      const success = outcome.status >= 200 && outcome.status < 300;
      // What may end up in an error (message, body) is redacted; a success's data goes to the caller as is.
      let body = this.parseBody(success ? outcome.text : this.redact(outcome.text), outcome.headers);
      if (success && typeof body === "string") body = this.redact(body);
      if (success) {
        // A web page answering 200 is a wrong base URL, not the API.
        if (typeof body === "string")
          throw makeAPIError(outcome.status, outcome.headers, body, info.method, info.path);
        return { status: outcome.status, headers: outcome.headers, body, ...info };
      }
      if (
        outcome.status === 404 &&
        req.notFoundAfterRetryIsSuccess &&
        maybeApplied &&
        typeof body === "object"
      ) {
        return { status: outcome.status, headers: outcome.headers, body, ...info };
      }

      const error = makeAPIError(outcome.status, outcome.headers, body, info.method, info.path, {
        collection: req.collection === true,
      });
      const retryable = outcome.status === 429 || outcome.status >= 500;
      // A create answered 5xx may have been stored before the failure: never repeat it. A 429 is
      // refused before anything happens, so it is safe for every request.
      const allowed = req.retry === "idempotent" || outcome.status === 429;
      if (!retryable || !allowed || retries >= maxRetries) throw error;
      const retryAfter = retryAfterSeconds(outcome.headers, receivedAt);
      if (retryAfter !== undefined && retryAfter * 1000 > MAX_HONOURED_RETRY_AFTER_MS) throw error;
      if (outcome.status === 429) {
        // The pacer now knows the reset (Retry-After / X-RateLimit-Reset) and waits for it in acquire().
        this.logger?.warn?.(`${error.message}; waiting for the rate-limit window, then retrying`);
        if (retryAfter === undefined) await this.wait(this.backoff(retries));
      } else {
        if (req.method !== "GET") maybeApplied = true;
        const delay = retryAfter !== undefined ? Math.ceil(retryAfter * 1000) : this.backoff(retries);
        this.logger?.warn?.(
          `${error.message}; retrying in ${delay} ms (retry ${retries + 1} of ${maxRetries})`,
        );
        await this.wait(delay);
      }
      retries++;
    }
  }

  /** One attempt: resolves to the status, headers and whole body text, or throws an APIConnectionError. */
  private async send(
    req: APIRequest,
    timeout: number,
    info: { method: string; path: string },
  ): Promise<{ status: number; headers: ResponseHeaders; text: string }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutMarker()), timeout);
    try {
      // The dispatcher's own request(): what undici's top-level request() calls after parsing a URL
      // into this origin and path, which are known here already.
      const res = await this.dispatcher.request({
        origin: this.origin,
        path: info.path,
        method: req.method,
        headers: {
          ...this.defaultHeaders,
          accept: "application/json",
          authorization: `Bearer ${apiKeys.get(this) ?? ""}`,
          ...(req.body === undefined ? {} : { "content-type": req.body.contentType }),
        },
        body: req.body?.bytes ?? null,
        signal: controller.signal,
      });
      // The timeout covers reading the body too: a server that stalls mid-answer is a timeout.
      const text = await res.body.text();
      return { status: res.statusCode, headers: lowerCaseHeaders(res.headers), text };
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason instanceof TimeoutMarker) {
        throw new APIConnectionTimeoutError(info, timeout);
      }
      const code = (err as { code?: unknown } | null)?.code;
      if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
        throw new APIConnectionTimeoutError(info, timeout, { cause: this.scrub(err) });
      }
      throw new APIConnectionError(info, undefined, { cause: this.scrub(err) });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Parses a body: JSON when it is JSON, its text otherwise (`undefined` when empty). */
  private parseBody(text: string, headers: ResponseHeaders): unknown {
    if (text.trim() === "") return undefined;
    if (isJSONContentType(headers) || (/^\s*[[{]/.test(text) && !headers["content-type"]?.includes("html"))) {
      try {
        return parseJSONKeepingBigIntegers(text);
      } catch {
        // Not JSON after all: fall through to text.
      }
    }
    return text.length > MAX_BODY_CHARS_IN_TEXT ? `${text.slice(0, MAX_BODY_CHARS_IN_TEXT)}…` : text;
  }

  private backoff(retry: number): number {
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry);
    return Math.round(base * (1 - 0.25 * this.random()));
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    this.stats.backoffMs += ms;
    await this.sleep(ms);
  }

  /** Removes the API key from text a server or a library produced. */
  private redact(text: string): string {
    const key = apiKeys.get(this);
    return key && text.includes(key) ? text.replaceAll(key, "[REDACTED]") : text;
  }

  /** Returns a transport error safe to attach as a cause (its message redacted). */
  private scrub(err: unknown): unknown {
    if (err instanceof Error) {
      const message = this.redact(err.message);
      if (message !== err.message) {
        const copy = new Error(message);
        (copy as { code?: unknown }).code = (err as { code?: unknown }).code;
        return copy;
      }
    }
    return err;
  }
}

/** The timeout the environment sets, if any (NaN when malformed, which the constructor rejects). */
function timeoutFromEnv(): number | undefined {
  const raw = process.env[TIMEOUT_ENV]?.trim();
  return raw === undefined || raw === "" ? undefined : Number(raw);
}

/** Adds the trailing `/` that makes relative paths resolve under a path prefix; rejects non-http URLs. */
function normalizeBaseURL(raw: string): string {
  if (!URL.canParse(raw)) {
    throw new MissingConfigurationError(
      `The base URL ${JSON.stringify(redactURL(raw))} is not an absolute URL (expected https://host[/prefix]).`,
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
