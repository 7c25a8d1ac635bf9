/**
 * The engine's resource monitor, as a `Construct` reaches it (the request names its address): the
 * two calls a component needs, as promises. Written over the gRPC stubs rather than through
 * `@pulumi/pulumi`'s runtime, whose settings are one per process: two components built at once
 * would share them.
 */
import * as grpc from "@grpc/grpc-js";
import { ResourceMonitorClient } from "@pulumi/pulumi/proto/resource_grpc_pb";
import {
  RegisterResourceOutputsRequest,
  type RegisterResourceRequest,
  type RegisterResourceResponse,
} from "@pulumi/pulumi/proto/resource_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";

/** A connection to a resource monitor. */
export interface ResourceMonitor {
  /** Registers a resource; answers once the engine has carried out its step. */
  register(request: RegisterResourceRequest): Promise<RegisterResourceResponse>;
  /** Records a component's outputs, which completes it. */
  registerOutputs(urn: string, outputs: Struct): Promise<void>;
  /** Closes the connection. */
  close(): void;
}

/** Connects to the monitor at `address` (host:port, no TLS, as the engine serves it). */
export function connectMonitor(address: string): ResourceMonitor {
  const client = new ResourceMonitorClient(address, grpc.credentials.createInsecure());
  const call = <T>(start: (done: (error: grpc.ServiceError | null, value: T) => void) => void): Promise<T> =>
    new Promise((resolve, reject) =>
      start((error, value) => (error === null ? resolve(value) : reject(error))),
    );
  return {
    register: (request) => call((done) => client.registerResource(request, done)),
    registerOutputs: async (urn, outputs) => {
      const request = new RegisterResourceOutputsRequest().setUrn(urn).setOutputs(outputs);
      await call((done) => client.registerResourceOutputs(request, done));
    },
    close: () => client.close(),
  };
}
