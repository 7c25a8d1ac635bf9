/**
 * The provider's own configuration through the plugin: `CheckConfig`, `DiffConfig` and `Configure`.
 * The keys, rules and environment fallbacks are those of `../core/config`; this file only reads them out
 * of the engine's messages (the checked inputs, or Configure's `variables` and `args`).
 */
import {
  CheckFailure,
  type CheckRequest,
  CheckResponse,
  type ConfigureRequest,
  ConfigureResponse,
  type DiffRequest,
  DiffResponse,
  PropertyDiff,
} from "@pulumi/pulumi/proto/provider_pb";

import { CONFIG_KEYS, type ConfigGetter, readSettings, settingsFailures, shortKey } from "../core/config";
import type { ProviderContext } from "../core/context";
import { UNKNOWN } from "../core/inputs";
import { PACKAGE_NAME } from "../tokens";
import { type PropertyValues, decodeProperties } from "./properties";

/** Keys the engine or the SDKs add to a provider's inputs, which are not configuration of ours. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);
const SHORT_KEYS = Object.keys(CONFIG_KEYS);

/** A configuration value as the settings read it: text, or unset (an unknown counts as unset). */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === UNKNOWN) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

const getterOf =
  (values: PropertyValues): ConfigGetter =>
  (key) =>
    asText(values[shortKey(key)]);

/** Checks the configuration: every key of ours that breaks its rule, and keys that are not ours. */
export function checkConfig(request: CheckRequest): CheckResponse {
  const { values } = decodeProperties(request.getNews());
  const response = new CheckResponse();
  // The inputs go back as they came, secrets still wrapped.
  const news = request.getNews();
  if (news !== undefined) response.setInputs(news);
  // Each reason names its key (`settingsFailures`' do); none names a property, whose value the engine
  // would print, the key's included.
  const reasons = settingsFailures(getterOf(values)).map(({ reason }) => reason);
  for (const key of Object.keys(values)) {
    if (SHORT_KEYS.includes(key) || ENGINE_KEYS.has(key) || key.startsWith("__")) continue;
    reasons.push(
      `${PACKAGE_NAME}:${key} is not a configuration key of ${PACKAGE_NAME} (the keys: ${SHORT_KEYS.join(", ")})`,
    );
  }
  response.setFailuresList(reasons.map((reason) => new CheckFailure().setReason(reason)));
  return response;
}

/**
 * Compares the configuration. A change replaces nothing: a new key or URL is used from the next
 * call on, and a resource moved to another site is the resource's own diff (see `../core/operations`).
 */
export function diffConfig(request: DiffRequest): DiffResponse {
  const olds = decodeProperties(request.getOlds()).values;
  const news = decodeProperties(request.getNews()).values;
  const changed = SHORT_KEYS.filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
  const response = new DiffResponse()
    .setChanges(changed.length > 0 ? DiffResponse.DiffChanges.DIFF_SOME : DiffResponse.DiffChanges.DIFF_NONE)
    .setDiffsList(changed)
    .setHasdetaileddiff(true);
  for (const key of changed) {
    response.getDetaileddiffMap().set(key, new PropertyDiff().setKind(PropertyDiff.Kind.UPDATE));
  }
  return response;
}

/**
 * Reads the settings into the context: each key from `args` (typed values, secrets wrapped) or else
 * `variables` (`notification-handlers:config:<key>`), else its environment variable.
 */
export function configure(ctx: ProviderContext, request: ConfigureRequest): ConfigureResponse {
  const args = decodeProperties(request.getArgs()).values;
  const variables = request.getVariablesMap();
  ctx.settings = readSettings((key) => {
    const property = shortKey(key);
    return asText(args[property]) ?? asText(variables.get(`${PACKAGE_NAME}:config:${property}`));
  });
  const response = new ConfigureResponse()
    .setAcceptsecrets(true)
    .setSupportspreview(true)
    .setAcceptresources(false)
    .setAcceptoutputs(false);
  return response;
}
