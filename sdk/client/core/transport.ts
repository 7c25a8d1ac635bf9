/**
 * The transport behind the client: one undici dispatcher (a keep-alive `Agent` of its own unless
 * given one), the Authorization header, rate-limit pacing, and the retry loop that turns attempts
 * into a 2xx answer or a typed error. The API key is kept in no property, and whatever a server or
 * a library echoes of it is redacted before it reaches an error or a log line.
 */

import { Agent, type Dispatcher } from "undici";
import type { APIRequest, APIResponse } from "./api-request";
import { type RawAnswer, sendAttempt } from "./attempt";
import type { CheckedOptions, ClientOptions, Logger } from "../client-options";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  type APIError,
  CreateOutcomeUnknownError,
  type RequestInfo,
} from "./errors";
import { makeAPIError } from "./error-mapping";
import { retryAfterSeconds } from "./response-headers";
import { RateLimitPacer, type PacerState } from "./rate-limit";
import { redactSecret, scrubError } from "./redaction";
import { parseBody } from "./response-body";
import {
  MAX_HONOURED_RETRY_AFTER_MS,
  backoffDelay,
  certainlyNotSent,
  mayRetryConnectionError,
  mayRetryStatus,
} from "./retry";

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

/** Where one request stands between its attempts. */
interface Attempts {
  readonly timeout: number;
  readonly maxRetries: number;
  /** Retries made so far. */
  retries: number;
  /** Whether an earlier attempt may have been applied by the server (for delete's 404-after-retry). */
  maybeApplied: boolean;
}

// The key lives here, keyed by transport, so it is in no property of the client or the transport:
// util.inspect (even with showHidden), JSON.stringify and Pulumi's closure serialization cannot
// reach it through either object.
const apiKeys = new WeakMap<object, string>();

/** Sends the client's requests: pacing, timeout and the retry policy. @internal */
export class Transport {
  /** Counters: requests sent, retries, time paced and backed off, 429s received. */
  readonly stats: ClientStats = { requests: 0, retries: 0, pacedMs: 0, rateLimited: 0, backoffMs: 0 };

  private readonly timeout: number;
  private readonly maxRetries: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly logger: Logger | undefined;
  private readonly pacer: RateLimitPacer;
  private readonly defaultHeaders: Record<string, string>;
  /** The base URL's scheme, host and port (no credentials), as undici's dispatcher takes it. */
  private readonly origin: string;
  /** The base URL's path, ending with `/`; request paths are appended to it. */
  private readonly basePath: string;

  constructor(checked: CheckedOptions, options: ClientOptions) {
    const parsedBase = new URL(checked.baseURL);
    this.origin = parsedBase.origin;
    this.basePath = parsedBase.pathname;
    apiKeys.set(this, checked.apiKey);
    this.timeout = checked.timeout;
    this.maxRetries = checked.maxRetries;
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
      windowMs: checked.rateLimitWindowMs,
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
  }

  /** What the rate-limit pacer currently believes. */
  rateLimitState(): PacerState {
    return this.pacer.state();
  }

  /** Closes the dispatcher if it is the transport's own. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Sends a request with pacing, timeout and the retry policy; resolves to a 2xx answer or throws a typed error. */
  async request(req: APIRequest): Promise<APIResponse> {
    // The path is built as a string, not resolved with `new URL` and handed to undici to take apart
    // again: request paths are ours (fixed segments and encodeURIComponent'd ids) and the base path
    // is already normalized, so nothing needs resolving. The query is encoded as URLSearchParams does.
    const search = req.query === undefined ? "" : new URLSearchParams(req.query).toString();
    const info = {
      method: req.method,
      path: `${this.basePath}${req.path}${search === "" ? "" : `?${search}`}`,
    };
    const attempts: Attempts = {
      timeout: req.options?.timeout ?? this.timeout,
      maxRetries: req.options?.maxRetries ?? this.maxRetries,
      retries: 0,
      maybeApplied: false,
    };

    for (;;) {
      // Most requests need no wait: tryAcquire() spares them acquire()'s promise and its await.
      const paced = this.pacer.tryAcquire() ? 0 : await this.pacer.acquire();
      if (paced > 0) {
        this.stats.pacedMs += paced;
        this.logger?.info?.(`${info.method} ${info.path}: waited ${paced} ms for the rate-limit window`);
      }
      this.stats.requests++;
      if (attempts.retries > 0) this.stats.retries++;
      const started = this.now();
      let answer: RawAnswer;
      try {
        answer = await this.send(req, info.path, attempts.timeout);
      } catch (err) {
        this.pacer.release();
        await this.retryAfterConnectionError(err, req, info, attempts);
        continue;
      }

      const receivedAt = this.now();
      this.pacer.observe(answer.status, answer.headers, receivedAt);
      this.pacer.release();
      if (answer.status === 429) this.stats.rateLimited++;
      this.logger?.debug?.(`${info.method} ${info.path} -> ${answer.status} in ${receivedAt - started} ms`);

      const success = answer.status >= 200 && answer.status < 300;
      // What may end up in an error (message, body) is redacted; a success's data goes to the caller as is.
      let body = parseBody(success ? answer.text : this.redact(answer.text), answer.headers);
      if (success && typeof body === "string") body = this.redact(body);
      if (success) {
        // A web page answering 200 is a wrong base URL, not the API.
        if (typeof body === "string")
          throw makeAPIError(answer.status, answer.headers, body, info.method, info.path);
        return { status: answer.status, headers: answer.headers, body, ...info };
      }
      if (
        answer.status === 404 &&
        req.notFoundAfterRetryIsSuccess &&
        attempts.maybeApplied &&
        typeof body === "object"
      ) {
        return { status: answer.status, headers: answer.headers, body, ...info };
      }

      const error = makeAPIError(answer.status, answer.headers, body, info.method, info.path, {
        collection: req.collection === true,
      });
      await this.retryAfterErrorStatus(error, answer, receivedAt, req, attempts);
    }
  }

  /** One attempt of `req` at `path` (base path and query included). */
  private send(req: APIRequest, path: string, timeout: number): Promise<RawAnswer> {
    return sendAttempt(
      this.dispatcher,
      {
        origin: this.origin,
        method: req.method,
        path,
        headers: {
          ...this.defaultHeaders,
          accept: "application/json",
          authorization: `Bearer ${apiKeys.get(this) ?? ""}`,
          ...(req.body === undefined ? {} : { "content-type": req.body.contentType }),
        },
        body: req.body?.bytes ?? null,
      },
      timeout,
      (err) => scrubError(err, apiKeys.get(this)),
    );
  }

  /** After a failed connection: waits for the next attempt when it may be retried, else throws. */
  private async retryAfterConnectionError(
    err: unknown,
    req: APIRequest,
    info: RequestInfo,
    attempts: Attempts,
  ): Promise<void> {
    if (!(err instanceof APIConnectionError)) throw err;
    const notSent = !(err instanceof APIConnectionTimeoutError) && certainlyNotSent(err.cause);
    const canRetry = attempts.retries < attempts.maxRetries && mayRetryConnectionError(req.retry, notSent);
    if (!canRetry) {
      if (req.retry === "create" && !notSent) throw new CreateOutcomeUnknownError(info, { cause: err });
      throw err;
    }
    if (!notSent) attempts.maybeApplied = true;
    const delay = backoffDelay(attempts.retries, this.random);
    this.logger?.warn?.(
      `${err.message}; retrying in ${delay} ms (retry ${attempts.retries + 1} of ${attempts.maxRetries})`,
    );
    await this.wait(delay);
    attempts.retries++;
  }

  /** After an error status: waits for the next attempt when it may be retried, else throws `error`. */
  private async retryAfterErrorStatus(
    error: APIError,
    answer: RawAnswer,
    receivedAt: number,
    req: APIRequest,
    attempts: Attempts,
  ): Promise<void> {
    if (!mayRetryStatus(answer.status, req.retry) || attempts.retries >= attempts.maxRetries) throw error;
    const retryAfter = retryAfterSeconds(answer.headers, receivedAt);
    if (retryAfter !== undefined && retryAfter * 1000 > MAX_HONOURED_RETRY_AFTER_MS) throw error;
    if (answer.status === 429) {
      // The pacer now knows the reset (Retry-After / X-RateLimit-Reset) and waits for it in acquire().
      this.logger?.warn?.(`${error.message}; waiting for the rate-limit window, then retrying`);
      if (retryAfter === undefined) await this.wait(backoffDelay(attempts.retries, this.random));
    } else {
      if (req.method !== "GET") attempts.maybeApplied = true;
      const delay =
        retryAfter !== undefined ? Math.ceil(retryAfter * 1000) : backoffDelay(attempts.retries, this.random);
      this.logger?.warn?.(
        `${error.message}; retrying in ${delay} ms (retry ${attempts.retries + 1} of ${attempts.maxRetries})`,
      );
      await this.wait(delay);
    }
    attempts.retries++;
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    this.stats.backoffMs += ms;
    await this.sleep(ms);
  }

  /** Removes the API key from text a server or a library produced. */
  private redact(text: string): string {
    return redactSecret(text, apiKeys.get(this));
  }
}
