/**
 * Explicit connections: a resource's `connection` input, one site (its base URL) and one account on
 * it (an API key), for programs that manage handlers on several sites or accounts at once. A resource
 * without one uses the provider's configuration (`notification-handlers:baseUrl` and `:apiKey`).
 *
 * The key never leaves this process in plain text: the resource passes the whole `connection` as a
 * secret (so the state holds it encrypted, inputs and outputs alike), the provider tells connections
 * apart by the base URL and a hash of the key, and messages name the base URL only.
 */
import { createHash } from "node:crypto";

import { withoutCredentials } from "../../sdk/client/core/redaction";
import type { Connection } from "./config";
import type { CheckFailure, HandlerInputs } from "./inputs";
import { UNKNOWN } from "./inputs";

/** The resource input that holds an explicit connection. */
export const CONNECTION_PROPERTY = "connection";

/** A connection input whose value is not known until apply time (a preview of a computed value). */
export const UNKNOWN_CONNECTION = "unknown";

/**
 * Checks a resource's `connection` input. Each failure names the field and its rule; it is reported on
 * the resource, not on the property, so the engine never prints the value next to it.
 */
export function connectionFailures(value: unknown): CheckFailure[] {
  if (value === undefined || value === UNKNOWN) return [];
  const fail = (reason: string): CheckFailure => ({ property: "", reason: `connection${reason}` });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [fail(" must be an object with baseUrl and apiKey")];
  }
  const failures: CheckFailure[] = [];
  const { baseUrl, apiKey, ...rest } = value as Record<string, unknown>;
  for (const extra of Object.keys(rest)) failures.push(fail(`.${extra} is not a field of a connection`));
  if (baseUrl !== UNKNOWN) {
    if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
      failures.push(fail(".baseUrl is required: the site's URL, such as https://example.com"));
    } else if (!isHttpUrl(baseUrl.trim())) {
      failures.push(fail(".baseUrl must be an absolute http or https URL, such as https://example.com"));
    }
  }
  if (apiKey !== UNKNOWN && (typeof apiKey !== "string" || apiKey.trim() === "")) {
    failures.push(fail(".apiKey is required: the API key of the account on that site (a secret)"));
  }
  return failures;
}

function isHttpUrl(raw: string): boolean {
  if (!URL.canParse(raw)) return false;
  const { protocol } = new URL(raw);
  return protocol === "http:" || protocol === "https:";
}

/**
 * The explicit connection of checked inputs (or outputs): undefined when the resource uses the
 * provider's configuration, {@link UNKNOWN_CONNECTION} when part of it is not known yet.
 */
export function explicitConnection(
  inputs: HandlerInputs,
): Connection | typeof UNKNOWN_CONNECTION | undefined {
  const value = inputs[CONNECTION_PROPERTY];
  if (value === undefined || value === null) return undefined;
  if (value === UNKNOWN) return UNKNOWN_CONNECTION;
  const { baseUrl, apiKey } = value as Record<string, unknown>;
  if (baseUrl === UNKNOWN || apiKey === UNKNOWN) return UNKNOWN_CONNECTION;
  return { baseUrl: String(baseUrl).trim(), apiKey: String(apiKey).trim() };
}

/**
 * The site a base URL names, spelled one way: scheme, host, port and path (ending with `/`), without
 * credentials, query or fragment. Two connections with the same site reach the same handlers
 * (given the same account).
 */
export function siteOf(baseUrl: string): string {
  if (!URL.canParse(baseUrl)) return baseUrl;
  const url = new URL(baseUrl);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.toString();
}

/** How a message names a connection: its site, never its key. */
export function describeConnection(connection: Connection): string {
  return withoutCredentials(siteOf(connection.baseUrl));
}

/**
 * Tells connections apart: the site and a hash of the key. Two resources with the same site and key
 * share one client and one account snapshot. Never printed.
 */
export function connectionId(connection: Connection): string {
  const digest = createHash("sha256").update(connection.apiKey).digest("hex").slice(0, 32);
  return `${siteOf(connection.baseUrl)} ${digest}`;
}
