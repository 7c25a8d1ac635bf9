/**
 * The plugin's gRPC server: `pulumirpc.ResourceProvider` on 127.0.0.1, without TLS, as the engine
 * expects of a resource provider plugin. Each method routes to its file; methods left out (Construct,
 * Call, Attach, Parameterize, GetMapping, List...) answer UNIMPLEMENTED, which the engine accepts.
 */
import * as grpc from "@grpc/grpc-js";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { type IResourceProviderServer, ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { GetSchemaResponse } from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

import { ProviderContext } from "../context";
import { pulumiSchema } from "../schema";
import { checkConfig, configure, diffConfig } from "./config-calls";
import { invoke } from "./invoke";
import { check, create, diff, read, remove, update } from "./resource-calls";
import { unary } from "./unary";

/** A running plugin server. */
export interface PluginServer {
  /** The port on 127.0.0.1. */
  port: number;
  /** The state its calls share (settings, clients, the cancel flag). */
  context: ProviderContext;
  /** Stops the server, ending the calls in flight. */
  close(): void;
}

/** The methods the plugin serves. */
type ServedMethods = Pick<
  IResourceProviderServer,
  | "getPluginInfo"
  | "getSchema"
  | "checkConfig"
  | "diffConfig"
  | "configure"
  | "check"
  | "diff"
  | "create"
  | "read"
  | "update"
  | "delete"
  | "invoke"
  | "cancel"
>;

/** The service's handlers over one context. */
export function resourceProvider(ctx: ProviderContext, version: string): ServedMethods {
  return {
    getPluginInfo: unary(() => new PluginInfo().setVersion(version)),
    getSchema: unary(() => new GetSchemaResponse().setSchema(JSON.stringify({ ...pulumiSchema(), version }))),
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
    cancel: unary(() => {
      ctx.cancellation.cancel();
      return new Empty();
    }),
  };
}

/** Starts the server on 127.0.0.1, on a port the system chooses. */
export async function startPluginServer(version: string): Promise<PluginServer> {
  const context = new ProviderContext();
  const server = new grpc.Server();
  server.addService(ResourceProviderService, resourceProvider(context, version));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(error),
    );
  });
  return { port, context, close: () => server.forceShutdown() };
}
