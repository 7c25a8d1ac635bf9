/**
 * A request as the resource classes describe it and the answer they get back: the types shared by
 * the resources, the client and the transport (a leaf, so none of them imports another for types).
 */

import type { ResponseHeaders } from "./response-headers";
import type { FormBody } from "./multipart";

/** Per-call overrides. */
export interface RequestOptions {
  timeout?: number | undefined;
  maxRetries?: number | undefined;
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

/** What the resource classes send their requests through (the client). @internal */
export interface Requester {
  /** Sends a request; resolves to a 2xx answer or throws a typed error. */
  request(req: APIRequest): Promise<APIResponse>;
}
