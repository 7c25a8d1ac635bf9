/**
 * The plugin's gRPC server: GetPluginInfo and GetSchema answered at once, the provider's calls
 * (`./provider-calls`) loaded on the first of them. The engine also starts plugins only to read
 * their schema; those never load the API client and the operations.
 */
import type * as grpc from "@grpc/grpc-js";

import { packageInfo } from "./package-info";
import { PROVIDER_CALL_NAMES, type ProviderCalls, type ServingPlugin, servePlugin } from "./serve";
import { statusOf } from "./unary";

/**
 * Starts the plugin's server on 127.0.0.1, on a port the system chooses; its notes on resources go to
 * the engine at `engine`.
 */
export function startPluginServer(version: string, engine?: string): Promise<ServingPlugin> {
  let loading: Promise<ProviderCalls> | undefined;
  const load = (): Promise<ProviderCalls> =>
    (loading ??= import("./provider-calls.js").then((calls) => calls.providerCalls(engine)));
  return servePlugin({ ...packageInfo(version), ...deferred(load) });
}

/** Each provider call, answered once `load` has the calls. */
function deferred(load: () => Promise<ProviderCalls>): ProviderCalls {
  const entries = PROVIDER_CALL_NAMES.map((name) => {
    const call: grpc.handleUnaryCall<unknown, unknown> = (request, callback) => {
      load().then(
        (calls) => (calls[name] as grpc.handleUnaryCall<unknown, unknown>)(request, callback),
        (error: unknown) => callback(statusOf(error)),
      );
    };
    return [name, call];
  });
  return Object.fromEntries(entries) as ProviderCalls;
}
