/**
 * One HTTP attempt: a request sent through an undici dispatcher under a timeout that covers reading
 * the whole answer. A failure on the way becomes an `APIConnectionError` (or its timeout subclass).
 */

import type { Dispatcher } from "undici";
import { APIConnectionError, APIConnectionTimeoutError } from "./errors";
import type { ResponseHeaders } from "./response-headers";
import { lowerCaseHeaders } from "./response-body";

class TimeoutMarker extends Error {}

/** What one attempt sends. */
interface AttemptRequest {
  /** Scheme, host and port (no credentials), as undici's dispatcher takes it. */
  origin: string;
  method: "GET" | "POST" | "DELETE";
  /** The whole path: base path, request path and query. */
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** An answer as it arrived: the status, the headers (lower-case names) and the whole body text. */
export interface RawAnswer {
  status: number;
  headers: ResponseHeaders;
  text: string;
}

/**
 * Sends one attempt: resolves to the answer, or throws an APIConnectionError whose cause went
 * through `scrub` (which removes credentials from its message).
 */
export async function sendAttempt(
  dispatcher: Dispatcher,
  request: AttemptRequest,
  timeout: number,
  scrub: (err: unknown) => unknown,
): Promise<RawAnswer> {
  const info = { method: request.method, path: request.path };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutMarker()), timeout);
  try {
    // The dispatcher's own request(): what undici's top-level request() calls after parsing a URL
    // into this origin and path, which are known here already.
    const res = await dispatcher.request({
      origin: request.origin,
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body,
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
      throw new APIConnectionTimeoutError(info, timeout, { cause: scrub(err) });
    }
    throw new APIConnectionError(info, undefined, { cause: scrub(err) });
  } finally {
    clearTimeout(timer);
  }
}
