/**
 * One gRPC call of the engine, answered by an async function: its result, or its error as a gRPC
 * status. A partial failure (a handler exists although the step failed, see `../core/partial-failure`)
 * travels as the `ErrorResourceInitFailed` detail the engine reads to record that handler anyway.
 */
import * as grpc from "@grpc/grpc-js";
import { ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";

import { isPartialFailure } from "../core/partial-failure";
import { secretOutputsOf } from "../core/secret-properties";
import { encodeProperties } from "./properties";

/** A request the plugin cannot serve as asked (another type token, say): INVALID_ARGUMENT. */
export class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidRequestError";
  }
}

/** The gRPC handler of a unary method, from a function of its request (a throw is its error too). */
export function unary<Req, Res>(
  answer: (request: Req) => Res | Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve(call.request)
      .then(answer)
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(statusOf(error)),
      );
  };
}

/** The gRPC status of an error. */
export function statusOf(error: unknown): grpc.ServerErrorResponse {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof InvalidRequestError ? grpc.status.INVALID_ARGUMENT : grpc.status.UNKNOWN;
  const status: grpc.ServerErrorResponse = Object.assign(new Error(message), { code, details: message });
  if (!isPartialFailure(error)) return status;
  const detail = new ErrorResourceInitFailed();
  detail.setId(error.id);
  detail.setProperties(encodeProperties(error.properties, secretOutputsOf(error.properties.type)));
  detail.setReasonsList(error.reasons);
  const packed = new Any();
  packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const rich = new Status();
  rich.setCode(code);
  rich.setMessage(message);
  rich.addDetails(packed);
  const metadata = new grpc.Metadata();
  metadata.set("grpc-status-details-bin", Buffer.from(rich.serializeBinary()));
  return Object.assign(status, { metadata });
}
