/**
 * The HTTP layer below the routes: how long a request may take to arrive, and the answers to what
 * Node's HTTP parser refuses before Fastify sees a request (an unknown or lowercase method, headers
 * over the limit, a bad `Content-Length`, a request that stalls, `CONNECT`). Each gets the API's error
 * body and the status that says what is wrong, instead of Fastify's default body or silence
 * (docs/api.md#http-parser-refusals).
 */
import type { IncomingMessage, ServerOptions } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyBaseLogger } from "fastify";
import { ApiError, type ErrorRenderer, renderError } from "./errors";

/** How long a request's headers and body together may take to arrive, by default. */
export const DEFAULT_REQUEST_TIMEOUT = 20_000; // 20 s
/** The most the request line and headers may weigh: Node's own default, stated so errors can say it. */
export const MAX_HEADER_SIZE = 16 * 1024; // 16 KiB

/** The fixed titles of the parser's refusals. */
export const PROTOCOL_TITLES = {
  timeout: "The request did not arrive in time.",
  headersTooLarge: "The request headers are too large.",
  badRequest: "The request is not valid HTTP.",
} as const;

/**
 * How often Node looks for requests past their time. Its default (30 s) is why a stalled request
 * used to live up to 30 s past its limit; checking every second (more often for short limits, as
 * tests use) cuts one within a second of the limit.
 */
function checkingInterval(requestTimeout: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(requestTimeout / 4))); // 10 ms to 1 s
}

/** The Node server options that bound a request's arrival to `requestTimeout` milliseconds. */
export function timeoutOptions(requestTimeout: number): ServerOptions {
  return {
    // One limit for both: a request's headers and its body must all be in within it, counted from
    // its first byte (from the connection for a first request that sends nothing).
    headersTimeout: requestTimeout,
    requestTimeout,
    connectionsCheckingInterval: checkingInterval(requestTimeout),
    maxHeaderSize: MAX_HEADER_SIZE,
  };
}

/** What the parser's refusals need from the app. */
interface ProtocolOptions {
  /** The methods a path allows, or undefined for a path the app does not have. */
  readonly allowedMethods: (path: string) => readonly string[] | undefined;
  /** How the app renders errors (the emulation's renderer when emulating). */
  readonly render: ErrorRenderer;
  /** The request timeout in milliseconds, for the 408's detail. */
  readonly requestTimeout: number;
  /** When set, paths it accepts answer this HTML page instead (a site with the feature off). */
  readonly featureOff?: { readonly matches: (path: string) => boolean; readonly page: string };
  readonly log: FastifyBaseLogger;
}

/** A parser error: Node sets `code` and, for malformed input, the bytes it choked on. */
type ParserError = Error & { code?: string | undefined; rawPacket?: unknown };

// RFC 9110 token characters; a method is a token.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;

/** The method and path of a raw request line, as far as they can be read. */
function requestLine(raw: unknown): { method?: string; path?: string } {
  const line = Buffer.isBuffer(raw) ? (raw.toString("latin1").split("\r\n", 1)[0] ?? "") : "";
  const [method, target] = line.split(" ");
  return {
    ...(method !== undefined && TOKEN.test(method) ? { method } : {}),
    ...(target?.startsWith("/") === true ? { path: target.split("?", 1)[0] } : {}),
  };
}

/** The answer to a method the server does not know, on `path`: 405 where the path exists, else 404. */
function methodRefusal(options: ProtocolOptions, method: string, path: string | undefined): ApiError {
  const allow = path === undefined ? undefined : options.allowedMethods(path);
  return allow === undefined ? ApiError.notFound() : ApiError.methodNotAllowed(method, allow);
}

function parserRefusal(options: ProtocolOptions, error: ParserError): ApiError {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError(408, [
        {
          title: PROTOCOL_TITLES.timeout,
          detail: `Its headers and body must arrive within ${options.requestTimeout / 1000} s.`,
        },
      ]);
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(431, [
        { title: PROTOCOL_TITLES.headersTooLarge, detail: `The limit is ${MAX_HEADER_SIZE} bytes.` },
      ]);
    case "HPE_INVALID_METHOD": {
      // A method is a token; anything else in its place is not HTTP at all, not an unknown method.
      const { method, path } = requestLine(error.rawPacket);
      return method === undefined
        ? badRequest("The request line is not valid.")
        : methodRefusal(options, method, path);
    }
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
      return badRequest("The Content-Length header is not valid, or comes with Transfer-Encoding.");
    case "HPE_INVALID_TRANSFER_ENCODING":
    case "HPE_INVALID_CHUNK_SIZE":
      return badRequest("The Transfer-Encoding header or the chunked body is not valid.");
    default:
      return badRequest("The request could not be parsed.");
  }
}

function badRequest(detail: string): ApiError {
  return new ApiError(400, [{ title: PROTOCOL_TITLES.badRequest, detail }]);
}

/** A whole HTTP/1.1 answer that closes the connection, for writing straight to a socket. */
function rawAnswer(
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string>,
): string {
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    `content-type: ${contentType}`,
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

/** Writes `error` as the socket's last answer, then closes it. */
function answer(options: ProtocolOptions, socket: Duplex, error: ApiError, path: string | undefined): void {
  if (options.featureOff !== undefined && path !== undefined && options.featureOff.matches(path)) {
    socket.end(rawAnswer(404, "text/html; charset=utf-8", options.featureOff.page, {}));
    return;
  }
  // Deployed instances answer unknown methods with a 404; a malformed request never reaches their
  // code, their web server refuses it, so the rest keeps the reference shape
  // (docs/api.md#emulation-parser-refusals).
  const render = error.status === 405 ? options.render : renderError;
  const { status, body, headers = error.headers } = render(error);
  socket.end(rawAnswer(status, "application/json; charset=utf-8", JSON.stringify(body), { ...headers }));
}

/**
 * The server's `clientError` listener: answers each refusal in the API's error shape. Nothing is
 * written when the socket is gone, or when an answer has started on it (a timeout that strikes
 * while a response is being written can only close the connection).
 */
export function protocolErrorHandler(options: ProtocolOptions): (error: ParserError, socket: Duplex) => void {
  return (error, socket) => {
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
      ?.headersSent;
    if (error.code === "ECONNRESET" || !socket.writable || started === true) {
      socket.destroy();
      return;
    }
    const refusal = parserRefusal(options, error);
    // At info, as each completed request is: an operator sees stalls and malformed requests too.
    options.log.info({ code: error.code, status: refusal.status }, "request refused by the HTTP parser");
    answer(options, socket, refusal, requestLine(error.rawPacket).path);
    // A client that neither reads nor closes must not keep the socket: give it a second.
    setTimeout(() => socket.destroy(), 1_000).unref(); // 1 s
  };
}

/**
 * The server's `connect` listener. Node hands `CONNECT` to this event instead of the routes, and
 * drops the connection when nobody listens; the service tunnels nothing, so it is a refused method.
 */
export function connectHandler(options: ProtocolOptions): (request: IncomingMessage, socket: Duplex) => void {
  return (request, socket) => {
    const target = request.url ?? "";
    const path = target.startsWith("/") ? target.split("?", 1)[0] : undefined;
    answer(options, socket, methodRefusal(options, "CONNECT", path), path);
    setTimeout(() => socket.destroy(), 1_000).unref(); // 1 s
  };
}
