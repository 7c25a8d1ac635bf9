/**
 * The ready pack's rules and the helpers, called as `@pulumi/policy` calls them: a resource of either
 * type token, its inputs (unknown values behind the SDK's proxy), the rule's config. What each rule
 * reports, that an absent or empty list turns it off, and that no message holds a secret's value.
 */
import type { ResourceValidationArgs, StackValidationArgs } from "@pulumi/policy";
import { unknownCheckingProxy } from "@pulumi/policy";
import { describe, expect, it } from "vitest";

import {
  HANDLER_TYPES_IN_POLICIES,
  SecretValue,
  UNKNOWN,
  handlerView,
} from "../../provider/policy/handler-view";
import * as rules from "../../provider/policy/rules";
import { DYNAMIC_RESOURCE_TYPE, HANDLER_RESOURCE_TOKEN } from "../../provider/tokens";

/** The SDK's sentinel of a string the engine does not know yet. */
const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const SLACK = "https://hooks.evil.example/services/T0/B0/SECRET-PART";

type Props = Record<string, unknown>;

/** Inputs behind the SDK's proxy, which throws on reading an unknown value (its typings leave it out). */
const proxied = unknownCheckingProxy as unknown as (props: Props) => Props;

/** A resource as the SDK hands it to a resource policy, with `config` as the rule's. */
function resource(type: string, name: string, props: Props, config: object = {}): ResourceValidationArgs {
  return {
    type,
    name,
    urn: `urn:pulumi:dev::p::${type}::${name}`,
    props: proxied(props),
    getConfig: () => config,
  } as unknown as ResourceValidationArgs;
}

/** What a resource policy reports of one resource. */
async function reports(
  policy: typeof rules.destinationHosts,
  args: ResourceValidationArgs,
): Promise<string[]> {
  const found: string[] = [];
  const validate = policy.validateResource;
  if (typeof validate !== "function") throw new Error(`${policy.name} has no single validation`);
  await validate(args, (message: string) => found.push(message));
  return found;
}

/** What a stack policy reports of handlers `[name, props]`, with `config`. */
async function stackReports(
  policy: typeof rules.uniqueNames,
  handlers: [string, Props][],
  config: object = {},
): Promise<string[]> {
  const found: string[] = [];
  const stack = {
    resources: handlers.map(([name, props]) => ({
      type: HANDLER_RESOURCE_TOKEN,
      name,
      urn: `urn:${name}`,
      props: proxied(props),
    })),
    getConfig: () => config,
  } as unknown as StackValidationArgs;
  await policy.validateStack(stack, (message: string, urn?: string) => found.push(`${urn}: ${message}`));
  return found;
}

describe("the handler view", () => {
  it("matches both type tokens, types the fields and wraps the credentials", () => {
    expect(HANDLER_TYPES_IN_POLICIES).toEqual([DYNAMIC_RESOURCE_TYPE, HANDLER_RESOURCE_TOKEN]);
    for (const type of HANDLER_TYPES_IN_POLICIES) {
      const view = handlerView(resource(type, "s", { type: "slack", name: "S", slack: SLACK }));
      expect(view?.provider).toBe(type === DYNAMIC_RESOURCE_TYPE ? "dynamic" : "plugin");
      if (view?.type !== "slack") throw new Error("not a slack handler");
      const slack = view.fields.slack;
      expect(slack).toBeInstanceOf(SecretValue);
      expect(slack instanceof SecretValue && slack.reveal()).toBe(SLACK);
      expect(`${String(slack)} ${JSON.stringify(view)}`).not.toContain("SECRET-PART");
      expect(view.isEnabled).toBe(true);
    }
    expect(handlerView(resource("aws:s3/bucket:Bucket", "b", { type: "slack" }))).toBeUndefined();
  });

  it("gives what is unknown at preview as UNKNOWN, and no view while the type is unknown", () => {
    const view = handlerView(
      resource(HANDLER_RESOURCE_TOKEN, "e", { type: "email", name: UNKNOWN_STRING, email: UNKNOWN_STRING }),
    );
    expect(view?.name).toBe(UNKNOWN);
    expect(view?.fields).toEqual({ email: UNKNOWN });
    expect(handlerView(resource(HANDLER_RESOURCE_TOKEN, "u", { type: UNKNOWN_STRING }))).toBeUndefined();
  });
});

describe("the ready rules", () => {
  const slack = (config: object, url = SLACK): ResourceValidationArgs =>
    resource(DYNAMIC_RESOURCE_TYPE, "team-slack", { type: "slack", name: "S", slack: url }, config);

  it("destination-hosts names resource and field, never the URL, and is off without a list", async () => {
    const [message, ...more] = await reports(
      rules.destinationHosts,
      slack({ allowedHosts: ["hooks.slack.com"] }),
    );
    expect(more).toEqual([]);
    expect(message).toBe(
      'handler "team-slack" (slack): field slack (a secret, not shown) points at a host not in allowedHosts',
    );
    expect(await reports(rules.destinationHosts, slack({ allowedHosts: ["*.evil.example"] }))).toEqual([]);
    expect(await reports(rules.destinationHosts, slack({ allowedHosts: [] }))).toEqual([]);
    expect(await reports(rules.destinationHosts, slack({}))).toEqual([]);
    expect(await reports(rules.destinationHosts, slack({ allowedHosts: ["x"] }, UNKNOWN_STRING))).toEqual([]);
  });

  it("destination-hosts matches the host the URL parser reads, and shows no URL it cannot parse", async () => {
    const allowed = { allowedHosts: ["hooks.slack.com", "*.webhook.office.com", "bücher.example"] };
    const passes = async (url: string): Promise<boolean> =>
      (await reports(rules.destinationHosts, slack(allowed, url))).length === 0;
    expect(await passes("https://HOOKS.Slack.com./services/T0")).toBe(true);
    expect(await passes("https://hooks.slack.com:8443/services/T0")).toBe(true);
    expect(await passes("https://eu.webhook.office.com/x")).toBe(true);
    expect(await passes("https://xn--bcher-kva.example/x")).toBe(true);
    expect(await passes("https://hooks.slack.com@evil.example/services/T0")).toBe(false);
    expect(await passes("https://user:hooks.slack.com@evil.example/")).toBe(false);
    expect(await passes("https://evil.example/hooks.slack.com")).toBe(false);
    expect(await passes("https://hooks.slack.com.evil.example/")).toBe(false);
    expect(await passes("https://webhook.office.com/x")).toBe(false);
    expect(await passes("https://evilwebhook.office.com/x")).toBe(false);
    expect(await passes("https://ops:pw@hooks.slack.com/services/T0")).toBe(true);
    expect(await passes("https://[::1]:8443/x")).toBe(false);
    // Node.js reads these on hooks.slack.com, an RFC 3986 reader elsewhere or nowhere.
    for (const url of [
      "https://hooks.slack.com\\@evil.example/",
      "https:hooks.slack.com/x",
      "https:///hooks.slack.com/x",
    ]) {
      expect(await passes(url)).toBe(false);
      expect(await reports(rules.destinationHosts, slack(allowed, url))).toEqual([
        'handler "team-slack" (slack): field slack (a secret, not shown) is not a URL whose host every HTTP client reads alike',
      ]);
    }
    const unparsed = "https://hooks slack SECRET-PART";
    const [message] = await reports(rules.destinationHosts, slack({ allowedHosts: [""] }, unparsed));
    expect(message).toContain("(a secret, not shown)");
    expect(message).not.toContain("SECRET-PART");
  });

  it("email-domains, phone-country-codes and handler-types report what their lists leave out", async () => {
    const mail = resource(
      HANDLER_RESOURCE_TOKEN,
      "m",
      { type: "email", name: "M", email: "a@gmail.com" },
      {
        allowedDomains: ["example.com"],
        allowedTypes: ["twilio"],
      },
    );
    expect(await reports(rules.emailDomains, mail)).toEqual([
      'handler "m" (email): field email: domain "gmail.com" is not in allowedDomains',
    ]);
    const domainOf = (email: string, allowedDomains: string[]): ResourceValidationArgs =>
      resource(HANDLER_RESOURCE_TOKEN, "m", { type: "email", name: "M", email }, { allowedDomains });
    expect(await reports(rules.emailDomains, domainOf(" Ops@Example.COM ", ["example.com"]))).toEqual([]);
    expect(await reports(rules.emailDomains, domainOf("ops@mail.example.com", ["example.com"]))).toEqual([
      'handler "m" (email): field email: domain "mail.example.com" is not in allowedDomains',
    ]);
    expect(await reports(rules.emailDomains, domainOf("ops@mail.example.com", ["*.example.com"]))).toEqual(
      [],
    );
    expect(
      await reports(rules.emailDomains, domainOf('"a@example.com"@evil.example', ["example.com"])),
    ).toEqual(['handler "m" (email): field email: domain "evil.example" is not in allowedDomains']);
    expect(await reports(rules.handlerTypes, mail)).toEqual([
      'handler "m" (email): field type: "email" is not in allowedTypes',
    ]);
    const phone = (number: string): ResourceValidationArgs =>
      resource(
        HANDLER_RESOURCE_TOKEN,
        "p",
        { type: "whatsapp", name: "P", whatsapp: number },
        {
          allowedCountryCodes: ["+44", "1"],
        },
      );
    expect(await reports(rules.phoneCountryCodes, phone("+15551234567"))).toEqual([]);
    expect(await reports(rules.phoneCountryCodes, phone(" +447700900123 "))).toEqual([]);
    expect(await reports(rules.phoneCountryCodes, phone("4477009001234"))).toHaveLength(1);
    expect(await reports(rules.phoneCountryCodes, phone("+33612345678"))).toEqual([
      'handler "p" (whatsapp): field whatsapp: the number\'s country code is not in allowedCountryCodes',
    ]);
  });

  it("api-sites checks a connection's baseUrl and each plugin provider's, never the key", async () => {
    const config = { allowedSites: ["https://api.example.com/v1"] };
    const connected = (baseUrl: string): ResourceValidationArgs =>
      resource(
        DYNAMIC_RESOURCE_TYPE,
        "h",
        { type: "email", name: "H", email: "a@example.com", connection: { baseUrl, apiKey: "KEY-VALUE" } },
        config,
      );
    expect(await reports(rules.apiSites, connected("https://api.example.com/v1/"))).toEqual([]);
    expect(await reports(rules.apiSites, connected("HTTPS://API.example.com:443/v1/handlers"))).toEqual([]);
    expect(await reports(rules.apiSites, connected("https://api.example.com/v1x"))).toHaveLength(1);
    expect(await reports(rules.apiSites, connected("https://api.example.com@evil.example/v1"))).toHaveLength(
      1,
    );
    const opaque = resource(
      DYNAMIC_RESOURCE_TYPE,
      "h",
      { type: "email", name: "H", connection: { baseUrl: "bar://evil.example/api" } },
      { allowedSites: ["foo://alerts.example.com/"] },
    );
    expect(await reports(rules.apiSites, opaque)).toHaveLength(1);
    const [message] = await reports(rules.apiSites, connected("https://api.example.com/v2"));
    expect(message).toBe('handler "h" (email): connection.baseUrl is not one of allowedSites');
    const provider = resource(
      "pulumi:providers:notification-handlers",
      "default_0_2_0",
      {
        baseUrl: "http://127.0.0.1:8080",
        apiKey: "KEY-VALUE",
      },
      config,
    );
    expect(await reports(rules.apiSites, provider)).toEqual([
      'provider "default_0_2_0": baseUrl is not one of allowedSites',
    ]);
  });

  it("keeps-enabled-handler fails a stack whose required handlers are all disabled", async () => {
    const config = { requiredTypes: ["twilio", "twilio_call"] };
    const pager: [string, Props] = ["pager", { type: "twilio", name: "Pager", isEnabled: false }];
    expect(await stackReports(rules.enabledHandlerOfTypes, [pager], config)).toEqual([
      'undefined: the stack has no enabled handler of type twilio, twilio_call (disabled: "pager"; field isEnabled)',
    ]);
    const enabled: [string, Props] = ["call", { type: "twilio_call", name: "Call" }];
    expect(await stackReports(rules.enabledHandlerOfTypes, [pager, enabled], config)).toEqual([]);
    expect(await stackReports(rules.enabledHandlerOfTypes, [pager])).toEqual([]);
    // At preview, a handler whose type is not known yet may be the enabled one: up checks it.
    const computed: [string, Props] = ["computed", { type: UNKNOWN_STRING, name: "Computed" }];
    expect(await stackReports(rules.enabledHandlerOfTypes, [pager, computed], config)).toEqual([]);
  });

  it("unique-names names each handler that shares a name, and the others that have it", async () => {
    const found = await stackReports(rules.uniqueNames, [
      ["c", { type: "email", name: "Ops" }],
      ["b", { type: "internal_notification", name: " Ops " }],
      ["a", { type: "email", name: "Ops" }],
      ["d", { type: "email", name: "Other" }],
      ["e", { type: "email", name: UNKNOWN_STRING }],
    ]);
    expect(found).toEqual([
      'urn:c: handler "c" (email): field name "Ops" is also the name of "a", "b"',
      'urn:b: handler "b" (internal_notification): field name "Ops" is also the name of "a", "c"',
      'urn:a: handler "a" (email): field name "Ops" is also the name of "b", "c"',
    ]);
  });
});
