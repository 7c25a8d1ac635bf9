/** Reading an answer as it arrived: its headers under lower-case names, its body as JSON or text. */

import type { ResponseHeaders } from "./response-headers";
import { parseJSONKeepingBigIntegers } from "./json";

const MAX_BODY_CHARS_IN_TEXT = 2_000;

/** The headers under lower-case names, without `authorization` and cookies. */
export function lowerCaseHeaders(raw: Record<string, string | string[] | undefined>): ResponseHeaders {
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

/** Parses a body: JSON when it is JSON, its text otherwise (`undefined` when empty). */
export function parseBody(text: string, headers: ResponseHeaders): unknown {
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
