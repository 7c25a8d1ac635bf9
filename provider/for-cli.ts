/**
 * What the command line takes of the provider: cli/ imports provider/ through this module alone.
 * Importing it runs nothing and loads only small modules: the plugin's server, with gRPC and Pulumi's
 * protocol, loads when `runPlugin` starts it, and the provider's operations on the engine's first
 * call, so no command loads either.
 */
import { runAsPlugin } from "./plugin/lifecycle";

export { HANDLER_RESOURCE_TYPES, NPM_PACKAGE, PACKAGE_NAME, PLUGIN_EXECUTABLE } from "./tokens";
export { packageVersion } from "./version";
export { CONFIG_KEYS, clientOptions, readSettings, requireConnection } from "./core/config";
export { connectionId, explicitConnection } from "./core/connection";
export {
  type Diagnostic,
  type DriftNote,
  ORIGINS,
  SHOWN_SECRET,
  parseDriftNotes,
  renamedField,
} from "./core/drift-note";
export { desiredFrom, differences, outputsFrom, toLive } from "./core/inputs";
export { SECRET_OUTPUTS } from "./core/secret-properties";
export { PROVIDER_KEY } from "./dynamic/state-contract";
export { formatProblem, readSetFiles } from "./handler-sets/format";
export { readSetSources } from "./handler-sets/sources";
export { isEngineAddress } from "./plugin/lifecycle";

/** Serves the plugin as the engine starts it, until the engine ends it (`./plugin/lifecycle`). */
export function runPlugin(): void {
  runAsPlugin((version, engine) =>
    import("./plugin/server.js").then((server) => server.startPluginServer(version, engine)),
  );
}
