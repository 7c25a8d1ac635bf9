/**
 * The gRPC plumbing of a plugin: a table of methods served as `pulumirpc.ResourceProvider` on
 * 127.0.0.1, without TLS, as the engine expects of a resource provider plugin. Methods left out of
 * the table (Call, Attach, Parameterize, GetMapping, List...) answer UNIMPLEMENTED, which
 * the engine accepts. The plugin's table is `./server`'s; `bench/noop-plugin.ts` serves one that does
 * nothing.
 */
import * as grpc from "@grpc/grpc-js";
import { type IResourceProviderServer, ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";

/** A gRPC server serving on 127.0.0.1. */
export interface ServingPlugin {
  /** The port on 127.0.0.1. */
  port: number;
  /** Stops the server, ending the calls in flight. */
  close(): void;
}

/** The methods the provider's core answers (`./provider-calls`). */
export const PROVIDER_CALL_NAMES = [
  "checkConfig",
  "diffConfig",
  "configure",
  "check",
  "diff",
  "create",
  "read",
  "update",
  "delete",
  "invoke",
  "construct",
  "cancel",
] as const;

/** Those methods' handlers. */
export type ProviderCalls = Pick<IResourceProviderServer, (typeof PROVIDER_CALL_NAMES)[number]>;

/** The methods a plugin of this package serves: what it says of itself, and the core's. */
export type ServedMethods = Pick<IResourceProviderServer, "getPluginInfo" | "getSchema"> & ProviderCalls;

/** Serves these methods on 127.0.0.1, on a port the system chooses. */
export async function servePlugin(methods: Partial<ServedMethods>): Promise<ServingPlugin> {
  const server = new grpc.Server();
  server.addService(ResourceProviderService, methods);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(error),
    );
  });
  return { port, close: () => server.forceShutdown() };
}
