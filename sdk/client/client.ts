/**
 * `NotificationHandlersClient`: the one object a user makes. It checks its options, owns the
 * transport (`transport.ts`: the undici `Agent` with keep-alive, the Authorization header, timeouts,
 * retries and rate-limit pacing) and carries the resources, which describe requests and send them
 * through it.
 */

import { inspect } from "node:util";
import type { APIRequest, APIResponse, Requester } from "./core/api-request";
import { type ClientOptions, checkOptions } from "./client-options";
import { ClientClosedError } from "./core/errors";
import type { PacerState } from "./core/rate-limit";
import { withoutCredentials } from "./core/redaction";
import { NotificationHandlers } from "./domain/resources/notification-handlers";
import { type ClientStats, Transport } from "./core/transport";

/** The client of the Notification Handlers API. */
export class NotificationHandlersClient implements Requester {
  /** The base URL, normalized to end with `/` (credentials in it removed from messages). */
  readonly baseURL: string;
  /** Timeout of one attempt, in milliseconds. */
  readonly timeout: number;
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Counters: requests sent, retries, time paced and backed off, 429s received. */
  readonly stats: ClientStats;
  /** `list`, `retrieve`, `create`, `update`, `delete`. */
  readonly notificationHandlers: NotificationHandlers;

  private readonly transport: Transport;
  private closed = false;

  constructor(options: ClientOptions = {}) {
    const checked = checkOptions(options);
    this.baseURL = checked.baseURL;
    this.timeout = checked.timeout;
    this.maxRetries = checked.maxRetries;
    this.transport = new Transport(checked, options);
    this.stats = this.transport.stats;
    this.notificationHandlers = new NotificationHandlers(this);

    // Keep the transport out of enumeration (and out of JSON and util.inspect); the key is not in it.
    Object.defineProperty(this, "transport", { enumerable: false });
  }

  /** What the rate-limit pacer currently believes. */
  rateLimitState(): PacerState {
    return this.transport.rateLimitState();
  }

  /** Closes the client's own connections (a dispatcher passed in options is left open). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.transport.close();
  }

  /** Shown by util.inspect and console.log: never the key. */
  [inspect.custom](): string {
    return `NotificationHandlersClient { baseURL: ${JSON.stringify(withoutCredentials(this.baseURL))}, timeout: ${this.timeout}, maxRetries: ${this.maxRetries} }`;
  }

  /** JSON view: configuration and counters, never the key. */
  toJSON(): { baseURL: string; timeout: number; maxRetries: number; stats: ClientStats } {
    return {
      baseURL: withoutCredentials(this.baseURL),
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
    if (this.closed) throw new ClientClosedError("The client is closed.");
    return this.transport.request(req);
  }
}
