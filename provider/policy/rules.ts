/**
 * The ready pack's rules. Each takes its list from its policy config; an absent or empty list turns
 * the rule off, so the pack runs as it is (docs/policies.md#the-rules). Which fields a rule reads
 * comes from the catalog's field rules, so a new handler type with a URL, an email address or a
 * phone number is checked with no change here.
 */
import { domainToASCII } from "node:url";

import type { PolicyConfigSchema, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";

import { type FieldRule, HANDLER_TYPE_NAMES } from "../../sdk/client/domain/catalog";
import { DYNAMIC_RESOURCE_TYPE } from "../tokens";
import {
  PLUGIN_PROVIDER_TYPE,
  SecretValue,
  isHandlerResource,
  UNKNOWN,
  type HandlerView,
  type Unknown,
  fieldEntries,
  handlerView,
  known,
} from "./handler-view";
import { describeHandler, handlerPolicy, handlerStackPolicy } from "./policies";

/** A config schema of one list of strings, `items` constraining each. */
function listSchema(key: string, items: Record<string, unknown> = { type: "string" }): PolicyConfigSchema {
  return { properties: { [key]: { type: "array", items } } };
}

/** The list `key` of a policy's config, empty when absent. */
function listOf(config: Record<string, unknown>, key: string): string[] {
  const list = config[key];
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
}

/**
 * A domain as the URL parser writes a host: lower case, a Unicode label in its `xn--` form, no final
 * dot; as it is, in lower case, when it is no domain (an IPv6 address in brackets).
 */
function asciiDomain(name: string): string {
  const trimmed = name.trim().replace(/\.$/, "");
  return domainToASCII(trimmed) || trimmed.toLowerCase();
}

/** Whether `host` is one of `allowed`: the same name, or under a `*.` entry's domain. */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = asciiDomain(host);
  if (name === "") return false;
  return allowed.some((entry) =>
    entry.startsWith("*.") ? name.endsWith(`.${asciiDomain(entry.slice(2))}`) : name === asciiDomain(entry),
  );
}

/**
 * A mandatory rule of each handler, configured by the one list `key` of its policy config: off while
 * the list is absent or empty, else `check` given the list.
 */
function handlerListRule(args: {
  name: string;
  description: string;
  key: string;
  items?: Record<string, unknown>;
  check: (handler: HandlerView, allowed: string[], report: (message: string) => void) => void;
}): ResourceValidationPolicy {
  const { name, description, key, items, check } = args;
  return handlerPolicy({
    name,
    description,
    enforcementLevel: "mandatory",
    configSchema: listSchema(key, items),
    validateHandler: (handler, policyArgs, report) => {
      const allowed = listOf(policyArgs.getConfig(), key);
      if (allowed.length > 0) check(handler, allowed, report);
    },
  });
}

/** A field's text, whether a credential or not, for a check that never prints it. */
const textOf = (value: SecretValue | string): string =>
  value instanceof SecretValue ? value.reveal() : value;

/**
 * The known values of `handler`'s fields checked by one of `rules`, with the field's API name; trimmed,
 * as the API stores them.
 */
function valuesByRule(
  handler: HandlerView,
  rules: readonly FieldRule[],
): { field: string; secret: boolean; text: string }[] {
  return fieldEntries(handler).flatMap(({ spec, value }) =>
    rules.includes(spec.rule) && value !== UNKNOWN
      ? [{ field: spec.field, secret: spec.secret, text: textOf(value).trim() }]
      : [],
  );
}

/**
 * The host of `url` as Node.js's URL parser reads it, when a reader of RFC 3986 reads the same: the
 * authority after `//` up to the first `/`, `?` or `#`, after its last `@`, without its port. The
 * catalog's URL rules take what Node.js takes, a `\` for a `/` included, which other HTTP clients
 * read otherwise (`https://hooks.slack.com\@evil.example` is on evil.example to them); undefined
 * then, and for a URL that does not parse.
 */
function hostAllReadersAgreeOn(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1];
  if (authority === undefined) return undefined;
  const hostAndPort = authority.slice(authority.lastIndexOf("@") + 1);
  const host = hostAndPort.startsWith("[")
    ? hostAndPort.slice(0, hostAndPort.indexOf("]") + 1)
    : hostAndPort.replace(/:[0-9]*$/, "");
  const parsed = new URL(url).hostname;
  return asciiDomain(host) === asciiDomain(parsed) ? parsed : undefined;
}

/** Destination URLs (webhook, Slack, Discord, Teams, Google Chat) only on the hosts listed. */
export const destinationHosts: ResourceValidationPolicy = handlerListRule({
  name: "destination-hosts",
  description: "A handler's destination URL points at one of the allowed hosts.",
  key: "allowedHosts",
  check: (handler, allowed, report) => {
    for (const { field, secret, text } of valuesByRule(handler, ["http-url", "https-url"])) {
      const host = hostAllReadersAgreeOn(text);
      if (host !== undefined && hostAllowed(host, allowed)) continue;
      // A webhook URL is a credential whole: not even its host is shown.
      const shown = secret ? "(a secret, not shown)" : `"${text}"`;
      const fault =
        host === undefined
          ? "is not a URL whose host every HTTP client reads alike"
          : "points at a host not in allowedHosts";
      report(`${describeHandler(handler)}: field ${field} ${shown} ${fault}`);
    }
  },
});

/** Email addresses only in the domains listed. */
export const emailDomains: ResourceValidationPolicy = handlerListRule({
  name: "email-domains",
  description: "A handler's email address is in one of the allowed domains.",
  key: "allowedDomains",
  check: (handler, allowed, report) => {
    for (const { field, text } of valuesByRule(handler, ["email"])) {
      const domain = text.slice(text.lastIndexOf("@") + 1);
      if (!hostAllowed(domain, allowed))
        report(`${describeHandler(handler)}: field ${field}: domain "${domain}" is not in allowedDomains`);
    }
  },
});

/** Phone numbers (Twilio SMS and calls, WhatsApp) only with the country codes listed. */
export const phoneCountryCodes: ResourceValidationPolicy = handlerListRule({
  name: "phone-country-codes",
  description: "A handler's phone number has one of the allowed country codes.",
  key: "allowedCountryCodes",
  items: { type: "string", pattern: "^\\+?[0-9]{1,3}$" },
  check: (handler, listed, report) => {
    const allowed = listed.map((code) => code.replace(/^\+/, ""));
    for (const { field, text } of valuesByRule(handler, ["phone"])) {
      // E.164 country codes are prefix-free: a number starts with one code only.
      if (!allowed.some((code) => text.startsWith(`+${code}`)))
        report(
          `${describeHandler(handler)}: field ${field}: the number's country code is not in allowedCountryCodes`,
        );
    }
  },
});

/** Whether `address` is on one of the `allowed` sites: the same scheme, host and port, under its path. */
export function siteAllowed(address: string, allowed: readonly string[]): boolean {
  if (!URL.canParse(address)) return false;
  const url = new URL(address);
  const path = (u: URL): string => u.pathname.replace(/\/*$/, "/");
  return allowed.some((entry) => {
    if (!URL.canParse(entry)) return false;
    const site = new URL(entry);
    // A URL of a scheme other than http(s) has the opaque origin "null", equal to any other one's.
    return site.origin !== "null" && site.origin === url.origin && path(url).startsWith(path(site));
  });
}

/**
 * The API's address only on the sites listed: a TypeScript handler's `connection.baseUrl`, and the
 * `baseUrl` of each of the plugin's providers (the default one takes the stack's config), whose
 * handlers are on its site.
 */
export const apiSites: ResourceValidationPolicy = {
  name: "api-sites",
  description: "A handler's site (connection.baseUrl, the provider's baseUrl) is one of the allowed sites.",
  enforcementLevel: "mandatory",
  configSchema: listSchema("allowedSites"),
  validateResource: (resource, report) => {
    const allowed = listOf(resource.getConfig(), "allowedSites");
    if (allowed.length === 0) return;
    let address: string | Unknown | undefined;
    let where: string;
    if (resource.type === PLUGIN_PROVIDER_TYPE) {
      const props: Record<string, unknown> = resource.props;
      const baseUrl = known(() => props.baseUrl);
      address = typeof baseUrl === "string" || baseUrl === UNKNOWN ? baseUrl : undefined;
      where = `provider "${resource.name}": baseUrl`;
    } else if (resource.type === DYNAMIC_RESOURCE_TYPE) {
      const handler = handlerView(resource);
      if (handler === undefined) return;
      address = handler.site;
      where = `${describeHandler(handler)}: connection.baseUrl`;
    } else return;
    if (address === undefined || address === UNKNOWN || siteAllowed(address, allowed)) return;
    report(`${where} is not one of allowedSites`);
  },
};

/** Only the handler types listed. */
export const handlerTypes: ResourceValidationPolicy = handlerListRule({
  name: "handler-types",
  description: "A handler's type is one of the allowed types.",
  key: "allowedTypes",
  items: { type: "string", enum: HANDLER_TYPE_NAMES },
  check: (handler, allowed, report) => {
    if (!allowed.includes(handler.type))
      report(`${describeHandler(handler)}: field type: "${handler.type}" is not in allowedTypes`);
  },
});

/** The stack keeps at least one enabled handler of the types listed (a production stack's pager). */
export const enabledHandlerOfTypes: StackValidationPolicy = handlerStackPolicy({
  name: "keeps-enabled-handler",
  description: "The stack keeps at least one enabled handler of the required types.",
  enforcementLevel: "mandatory",
  configSchema: listSchema("requiredTypes", { type: "string", enum: HANDLER_TYPE_NAMES }),
  validateHandlers: (handlers, args, report) => {
    const required = listOf(args.getConfig(), "requiredTypes");
    if (required.length === 0) return;
    // A handler whose type is unknown at preview has no view, and may be the one: up decides.
    const typeUnknown = args.resources.some(
      (r) => isHandlerResource(r.type) && known((): unknown => r.props.type) === UNKNOWN,
    );
    if (typeUnknown) return;
    const candidates = handlers.filter((h) => required.includes(h.type));
    // Whether one is enabled may not be known until up.
    if (candidates.some((h) => h.isEnabled === true || h.isEnabled === UNKNOWN)) return;
    const disabled = candidates.map((h) => `"${h.resourceName}"`);
    report(
      `the stack has no enabled handler of type ${required.join(", ")}` +
        (disabled.length > 0 ? ` (disabled: ${disabled.join(", ")}; field isEnabled)` : ""),
    );
  },
});

/** Two handlers of a stack never share a name. */
export const uniqueNames: StackValidationPolicy = handlerStackPolicy({
  name: "unique-names",
  description: "No two handlers of the stack have the same name.",
  enforcementLevel: "mandatory",
  validateHandlers: (handlers, _args, report) => {
    const byName = new Map<string, HandlerView[]>();
    for (const handler of handlers) {
      if (handler.name === UNKNOWN) continue;
      const key = handler.name.trim();
      byName.set(key, [...(byName.get(key) ?? []), handler]);
    }
    for (const [name, named] of byName) {
      if (named.length < 2) continue;
      for (const handler of named) {
        // Sorted: the message is the same whatever order the program registered them in.
        const others = named
          .filter((h) => h !== handler)
          .map((h) => `"${h.resourceName}"`)
          .sort()
          .join(", ");
        report(
          `${describeHandler(handler)}: field name "${name}" is also the name of ${others}`,
          handler.urn,
        );
      }
    }
  },
});

/** The ready pack's rules, in docs/policies.md's order. */
export const HANDLER_POLICIES = [
  destinationHosts,
  emailDomains,
  phoneCountryCodes,
  apiSites,
  handlerTypes,
  enabledHandlerOfTypes,
  uniqueNames,
] as const;
