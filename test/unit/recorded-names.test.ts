/**
 * What Pulumi states hold keeps its value: the names and strings that recorded states carry (type
 * tokens, the provider types, the runtime module and its exports, the `__provider` sources, the
 * configuration keys, the function tokens, the plugin's download URL and the default providers the
 * engine names for it) compared with their golden copy, `fixtures/recorded-names.json`,
 * written out by hand rather than computed from the constants, so that a rename in code cannot change
 * them unnoticed. Each stack a release recorded (test/fixtures/upgrade) is read too: it holds no name
 * the golden copy or the schema lacks, and no secret in plain text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runInNewContext } from "node:vm";

import { describe, expect, it } from "vitest";
import { parse } from "yaml";

import { CONFIG_KEYS } from "../../provider/core/config";
import { CONNECTION_PROPERTY } from "../../provider/core/connection";
import { CONTRACT_1_SOURCE, providerSource } from "../../provider/dynamic/provider-source";
import { secretOutputsOf } from "../../provider/core/secret-properties";
import { PROVIDER_KEY } from "../../provider/dynamic/state-contract";
import {
  DYNAMIC_HANDLER_SET_TYPE,
  DYNAMIC_RESOURCE_TYPE,
  GET_HANDLER_TOKEN,
  GET_HANDLERS_TOKEN,
  HANDLER_RESOURCE_TOKEN,
  HANDLER_SET_TOKEN,
  NPM_PACKAGE,
  PACKAGE_NAME,
  PLUGIN_DOWNLOAD_URL,
  PLUGIN_EXECUTABLE,
  RUNTIME_MODULE,
} from "../../provider/tokens";
import { recordings, UPGRADE_FIXTURE } from "../../scripts/release/upgrade-fixture";
import golden from "./fixtures/recorded-names.json";

const REPOSITORY_ROOT = join(__dirname, "..", "..");

const read = (path: string): string => readFileSync(join(REPOSITORY_ROOT, path), "utf8");

describe("the names and strings recorded states hold, against their golden copy", () => {
  it("types and tokens: both providers' resources, their providers, the plugin, the functions", () => {
    expect({
      dynamicResourceType: DYNAMIC_RESOURCE_TYPE,
      dynamicHandlerSetType: DYNAMIC_HANDLER_SET_TYPE,
      // The engine names a provider's type after its package: the dynamic one's, and the plugin's.
      dynamicProviderType: `pulumi:providers:${DYNAMIC_RESOURCE_TYPE.split(":")[0]}`,
      packageName: PACKAGE_NAME,
      pluginExecutable: PLUGIN_EXECUTABLE,
      pluginProviderType: `pulumi:providers:${PACKAGE_NAME}`,
      pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
      resourceToken: HANDLER_RESOURCE_TOKEN,
      handlerSetToken: HANDLER_SET_TOKEN,
      functionTokens: [GET_HANDLER_TOKEN, GET_HANDLERS_TOKEN],
      configKeys: CONFIG_KEYS,
    }).toEqual({
      dynamicResourceType: golden.dynamicResourceType,
      dynamicHandlerSetType: golden.dynamicHandlerSetType,
      dynamicProviderType: golden.dynamicProviderType,
      packageName: golden.packageName,
      pluginExecutable: golden.pluginExecutable,
      pluginProviderType: golden.pluginProviderType,
      pluginDownloadURL: golden.pluginDownloadURL,
      resourceToken: golden.resourceToken,
      handlerSetToken: golden.handlerSetToken,
      functionTokens: golden.functionTokens,
      configKeys: golden.configKeys,
    });
    // The committed schema, which the SDKs are generated from, names the same.
    const schema = JSON.parse(read("provider/schema.json")) as {
      name: string;
      pluginDownloadURL: string;
      resources: Record<string, unknown>;
      functions: Record<string, unknown>;
      config: { variables: Record<string, unknown> };
    };
    expect(schema.name).toBe(golden.packageName);
    expect(schema.pluginDownloadURL).toBe(golden.pluginDownloadURL);
    expect(Object.keys(schema.resources).sort()).toEqual([golden.handlerSetToken, golden.resourceToken]);
    expect(Object.keys(schema.functions)).toEqual(golden.functionTokens);
    expect(Object.keys(schema.config.variables)).toEqual(Object.keys(golden.configKeys));
  });

  it("the provider sources: contract 1 as 0.1.0 recorded it, and what 0.2.0 records, nested or not", () => {
    expect(PROVIDER_KEY).toBe(golden.providerKey);
    expect({
      "contract 1, by 0.1.0": CONTRACT_1_SOURCE,
      "contract 2, by 0.2.0": providerSource({ version: "0.2.0" }),
      "contract 2, by 0.2.0, from the folder team-handlers": providerSource({
        version: "0.2.0",
        folder: "team-handlers",
      }),
    }).toEqual(golden.providerSources);
  });

  it("each source loads the provider from the module the package exports as the runtime", async () => {
    expect(NPM_PACKAGE).toBe(golden.npmPackage);
    expect(RUNTIME_MODULE).toBe(golden.runtimeModule);
    const { exports } = JSON.parse(read("package.json")) as { exports: Record<string, string> };
    const target = exports[`.${golden.runtimeModule.slice(golden.npmPackage.length)}`];
    // The built module's source: `./dist/provider/dynamic/runtime.js` is compiled from `provider/dynamic/runtime.ts`.
    expect(target).toMatch(/^\.\/dist\/.+\.js$/);
    const runtime = (await import(
      join(REPOSITORY_ROOT, target!.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"))
    )) as Record<string, unknown>;
    expect(Object.keys(runtime)).toEqual(expect.arrayContaining(golden.runtimeExports));
    for (const [name, source] of Object.entries(golden.providerSources)) {
      const required: string[] = [];
      const require = Object.assign(
        (module: string) => {
          required.push(module);
          return runtime;
        },
        { resolve: (module: string) => module },
      );
      const module: { handler?: () => unknown } = {};
      runInNewContext(source, { exports: module, require });
      expect(module.handler?.(), name).toBe(runtime.provider);
      expect(required, name).toEqual([golden.runtimeModule]);
    }
  });
});

/** A resource of a recorded state, as far as these checks read it. */
interface RecordedResource {
  type: string;
  urn: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

const resourcesOf = (recording: string): RecordedResource[] =>
  (JSON.parse(read(join(recording, "state.json"))) as { deployment: { resources: RecordedResource[] } })
    .deployment.resources;

const isCiphertext = (value: unknown): boolean =>
  typeof value === "object" && value !== null && "ciphertext" in value;

describe.each(recordings(REPOSITORY_ROOT))("the stack recorded in $name", ({ name, version, program }) => {
  const recording = join(UPGRADE_FIXTURE.releases, name);
  const resources = resourcesOf(recording);
  const handlers = resources.filter((r) =>
    [golden.dynamicResourceType, golden.resourceToken].includes(r.type),
  );

  it("holds no type, provider source or property that the golden copy or the schema lacks", () => {
    const types = [
      "pulumi:pulumi:Stack",
      golden.dynamicResourceType,
      golden.dynamicHandlerSetType,
      golden.dynamicProviderType,
      golden.pluginProviderType,
      golden.resourceToken,
      golden.handlerSetToken,
    ];
    expect(resources.filter((r) => !types.includes(r.type)).map((r) => r.urn)).toEqual([]);
    expect(handlers.length).toBeGreaterThan(0);
    const sources = Object.values(golden.providerSources);
    const schema = JSON.parse(read("provider/schema.json")) as {
      resources: Record<string, { inputProperties: object; properties: object }>;
    };
    const declared = schema.resources[golden.resourceToken]!;
    const known = new Set([
      ...Object.keys(declared.inputProperties),
      ...Object.keys(declared.properties),
      golden.providerKey,
      CONNECTION_PROPERTY,
    ]);
    for (const handler of handlers) {
      for (const properties of [handler.inputs ?? {}, handler.outputs ?? {}]) {
        expect(
          Object.keys(properties).filter((name) => !known.has(name)),
          handler.urn,
        ).toEqual([]);
        if (handler.type === golden.dynamicResourceType)
          expect(sources, handler.urn).toContain(properties[golden.providerKey]);
      }
    }
  });

  it("names the plugin's default provider for its version and download URL, as a user's program does", () => {
    const providers = resources.filter((r) => r.type === golden.pluginProviderType);
    expect(providers.length > 0, "a default provider of the plugin").toBe(program.downloadsPlugin === true);
    const names: Record<string, string> = golden.pluginDefaultProviders;
    for (const provider of providers) {
      const internal = provider.inputs?.__internal as { pluginDownloadURL?: unknown } | undefined;
      expect({
        name: provider.urn.split("::").at(-1),
        version: provider.inputs?.version,
        pluginDownloadURL: internal?.pluginDownloadURL,
      }).toEqual({ name: names[version], version, pluginDownloadURL: golden.pluginDownloadURL });
    }
  });

  it("keeps every secret encrypted: the config, the API key, credential fields and settings", () => {
    const config = parse(read(join(recording, `Pulumi.${UPGRADE_FIXTURE.stack}.yaml`))) as {
      config: Record<string, unknown>;
    };
    const plain = Object.entries(config.config).filter(
      ([, value]) => typeof value !== "object" || value === null || !("secure" in value),
    );
    expect(plain.map(([key]) => key)).toEqual([]);

    for (const provider of resources.filter((r) => r.type.startsWith("pulumi:providers:"))) {
      const inputs = provider.inputs ?? {};
      const apiKey = inputs[golden.configKeys.apiKey] ?? inputs.apiKey;
      expect(isCiphertext(apiKey), provider.urn).toBe(true);
    }
    for (const handler of handlers) {
      const secret = secretOutputsOf(handler.outputs?.type);
      for (const properties of [handler.inputs ?? {}, handler.outputs ?? {}]) {
        const exposed = secret.filter((name) => properties[name] != null && !isCiphertext(properties[name]));
        expect(exposed, handler.urn).toEqual([]);
      }
    }
    const text =
      read(join(recording, "state.json")) + read(join(recording, `Pulumi.${UPGRADE_FIXTURE.stack}.yaml`));
    for (const program of Object.values(UPGRADE_FIXTURE.programs))
      for (const value of Object.values(program.secrets)) expect(text.includes(value), value).toBe(false);
  });
});
