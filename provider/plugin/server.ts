/**
 * The plugin's gRPC server: each method of `pulumirpc.ResourceProvider` routed to its file, served
 * with `./serve`'s plumbing.
 */
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

import { ProviderContext } from "../context";
import { checkConfig, configure, diffConfig } from "./config-calls";
import { construct } from "./construct";
import { invoke } from "./invoke";
import { packageInfo } from "./package-info";
import { check, create, diff, read, remove, update } from "./resource-calls";
import { type ServedMethods, type ServingPlugin, servePlugin } from "./serve";
import { unary } from "./unary";

/** The running plugin server. */
export interface PluginServer extends ServingPlugin {
  /** The state its calls share (settings, clients, the cancel flag). */
  context: ProviderContext;
}

/** The service's handlers over one context. */
export function resourceProvider(ctx: ProviderContext, version: string): ServedMethods {
  return {
    ...packageInfo(version),
    checkConfig: unary(checkConfig),
    diffConfig: unary(diffConfig),
    configure: unary((request) => configure(ctx, request)),
    check: unary((request) => check(ctx, request)),
    diff: unary((request) => diff(ctx, request)),
    create: unary((request) => create(ctx, request)),
    read: unary((request) => read(ctx, request)),
    update: unary((request) => update(ctx, request)),
    delete: unary((request) => remove(ctx, request)),
    invoke: unary((request) => invoke(ctx, request)),
    construct: unary(construct),
    cancel: unary(() => {
      ctx.cancellation.cancel();
      return new Empty();
    }),
  };
}

/** Starts the plugin's server on 127.0.0.1, on a port the system chooses. */
export async function startPluginServer(version: string): Promise<PluginServer> {
  const context = new ProviderContext();
  return { ...(await servePlugin(resourceProvider(context, version))), context };
}
