/**
 * The plugin's Pulumi package schema: in step with the catalog (every type in the enum, every secret
 * field secret in the inputs and the outputs), with the provider (the inputs its check takes, the
 * outputs it writes, the settings it reads), and whole (every `$ref` defined). The committed file is
 * test/unit/generated.test.ts's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { CONFIG_KEYS } from "../../provider/core/config";
import { checkInputs, outputsFrom, toLive } from "../../provider/core/inputs";
import { UPDATE_STRATEGIES } from "../../sdk/client/domain/settings";
import {
  ANY_TOKEN,
  type EnumSpec,
  type ObjectSpec,
  type PropertySpec,
  pulumiSchema,
} from "../../provider/plugin/schema";
import {
  GET_HANDLERS_TOKEN,
  GET_HANDLER_TOKEN,
  HANDLER_INFO_TOKEN,
  HANDLER_RESOURCE_TOKEN,
  HANDLER_SET_TOKEN,
  HANDLER_TYPE_TOKEN,
  PACKAGE_NAME,
  UPDATE_STRATEGY_TOKEN,
} from "../../provider/tokens";
import { ALL_FIELDS, HANDLER_TYPES, HANDLER_TYPE_NAMES } from "../../sdk/client/domain/catalog";
import { NotificationHandlerRecord as ApiHandler } from "../../sdk/client/domain/resources/handler-parsing";

const ROOT = join(__dirname, "..", "..");
const schema = pulumiSchema();
const resource = schema.resources[HANDLER_RESOURCE_TOKEN];

/** Every `$ref` anywhere in a value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === "$ref" && typeof v === "string" ? [v] : refsIn(v),
  );
}

const enumValues = (token: string): unknown[] =>
  (schema.types[token] as EnumSpec | undefined)?.enum.map((e) => e.value) ?? [];

/** A telegram handler as the API answers, for the provider's outputs and the lookups' results. */
const live = toLive(
  ApiHandler.parse({
    id: 7,
    type: "telegram",
    name: "Ops",
    settings: { telegram: "123:abc", telegram_chat_id: "-100" },
    is_enabled: true,
    last_datetime: null,
    datetime: "2026-01-02 03:04:05",
  }),
);

describe("the Pulumi package schema", () => {
  it("leaves the version to the plugin, and has the package's license", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string };
    expect(schema).not.toHaveProperty("version");
    expect(schema.license).toBe(pkg.license);
    expect(schema.name).toBe(PACKAGE_NAME);
  });

  it("has every catalog type in the type enum, with its label", () => {
    const handlerType = schema.types[HANDLER_TYPE_TOKEN] as EnumSpec;
    expect(handlerType.enum.map((e) => e.value)).toEqual(HANDLER_TYPE_NAMES);
    for (const value of handlerType.enum) {
      expect(value.description).toBe(HANDLER_TYPES[value.value as keyof typeof HANDLER_TYPES].label);
    }
    expect(new Set(handlerType.enum.map((e) => e.name)).size).toBe(HANDLER_TYPE_NAMES.length);
    expect(enumValues(UPDATE_STRATEGY_TOKEN)).toEqual(UPDATE_STRATEGIES);
    expect(resource?.inputProperties.type?.$ref).toBe(`#/types/${HANDLER_TYPE_TOKEN}`);
  });

  it("has every catalog field as an input and an output, secret exactly where the catalog says", () => {
    expect(ALL_FIELDS.some((f) => f.secret)).toBe(true);
    for (const spec of ALL_FIELDS) {
      for (const properties of [resource?.inputProperties, resource?.properties]) {
        const property = properties?.[spec.property];
        expect(property, spec.property).toBeDefined();
        expect(property?.secret === true, spec.property).toBe(spec.secret);
        expect(property?.description, spec.property).toContain(spec.label);
        expect(property?.description, spec.property).toContain(`at most ${spec.maxLength} characters`);
      }
    }
    expect(resource?.requiredInputs).toEqual(["type"]);
  });

  it("has the inputs the provider's check takes", () => {
    const properties = Object.keys(resource?.inputProperties ?? {});
    expect(properties).toEqual([
      "type",
      "name",
      "isEnabled",
      ...ALL_FIELDS.map((f) => f.property),
      "adopt",
      "updateStrategy",
    ]);
    for (const property of properties) {
      const unknown = checkInputs({ type: "internal_notification", [property]: true }).filter((f) =>
        f.reason.includes("is not a property"),
      );
      expect(unknown, property).toEqual([]);
    }
    // The control: a property the check does not know is reported.
    expect(checkInputs({ type: "internal_notification", colour: "red" })).toContainEqual({
      property: "colour",
      reason: "is not a property of NotificationHandler",
    });
  });

  it("has the outputs the provider writes and no engine keys", () => {
    const inputs = {
      type: "telegram",
      name: "Ops",
      telegram: "123:abc",
      telegramChatId: "-100",
      adopt: true,
      updateStrategy: "replace",
      __provider: "engine's own",
    };
    const written = Object.keys(outputsFrom(inputs, live));
    const declared = Object.keys(resource?.properties ?? {});
    const fields = new Set(ALL_FIELDS.map((f) => f.property));
    expect(written).not.toContain("__provider");
    expect(declared).toEqual([
      ...Object.keys(resource?.inputProperties ?? {}),
      "handlerId",
      "pendingConfirmation",
      "settings",
      "lastDatetime",
      "datetime",
    ]);
    // Every declared output but the fields of other types.
    expect([...written].sort()).toEqual(declared.filter((key) => !fields.has(key) || key in inputs).sort());
    // Secret where the type has a credential field: the plugin marks it per handler.
    expect(resource?.properties?.settings?.secret).toBeUndefined();
  });

  it("has lookups that return what the provider's lookups return", () => {
    const info = schema.types[HANDLER_INFO_TOKEN] as ObjectSpec;
    expect(Object.keys(info.properties).sort()).toEqual(Object.keys(live).sort());
    expect(info.properties.settings?.secret).toBe(true);
    expect(schema.functions[GET_HANDLER_TOKEN]?.outputs).toEqual(info);
    expect(schema.functions[GET_HANDLER_TOKEN]?.inputs.required).toEqual(["name"]);
    expect(schema.functions[GET_HANDLERS_TOKEN]?.outputs.properties.handlers?.items?.$ref).toBe(
      `#/types/${HANDLER_INFO_TOKEN}`,
    );
    // `connection` is the TypeScript lookups' own: with the plugin, an explicit provider does its work.
    expect(Object.keys(schema.functions)).toEqual([GET_HANDLER_TOKEN, GET_HANDLERS_TOKEN]);
    for (const fn of Object.values(schema.functions))
      expect(fn.inputs.properties).not.toHaveProperty("connection");
  });

  it("has the provider's settings as config and provider inputs, the API key secret", () => {
    for (const variables of [schema.config.variables, schema.provider.inputProperties]) {
      expect(Object.keys(variables).map((name) => `${PACKAGE_NAME}:${name}`)).toEqual(
        Object.values(CONFIG_KEYS),
      );
      expect(variables.apiKey?.secret).toBe(true);
      expect(Object.values(variables).filter((v: PropertySpec) => v.secret === true)).toHaveLength(1);
      expect(variables.apiKey?.description).toContain("NOTIFICATION_HANDLERS_API_KEY");
      expect(variables.maxRetries?.description).toContain("NOTIFICATION_HANDLERS_MAX_RETRIES");
    }
  });

  it("declares HandlerSet as a component taking files or data, with the handlers' ids", () => {
    const set = schema.resources[HANDLER_SET_TOKEN]!;
    expect(set.isComponent).toBe(true);
    expect(Object.keys(set.inputProperties).sort()).toEqual(["files", "handlers", "updateStrategy"]);
    expect(set.inputProperties.files).toMatchObject({ type: "array", items: { type: "string" } });
    expect(set.requiredInputs).toBeUndefined(); // files or handlers: the plugin names the rule
    expect(set.properties?.handlerIds).toMatchObject({ additionalProperties: { type: "integer" } });
  });

  it("defines every type it refers to", () => {
    const refs = refsIn(schema);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs.filter((r) => r !== ANY_TOKEN)) {
      expect(ref, ref).toMatch(/^#\/types\//);
      expect(schema.types, ref).toHaveProperty([ref.slice("#/types/".length)]);
    }
    expect(refsIn({ a: [{ $ref: "#/types/x" }] })).toEqual(["#/types/x"]);
  });
});
