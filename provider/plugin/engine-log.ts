/**
 * The engine's log service, which the engine starts every plugin with the address of: a message sent
 * with a resource's URN is shown under that resource, and `pulumi preview --json` carries the URN with
 * it. A plugin's stderr reaches the user as lines of no resource, if at all.
 */
import * as grpc from "@grpc/grpc-js";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";

import { type Note, noteToStderr } from "../core/diagnostics";

/** Sends a resource's notes to the engine. */
export type ResourceLog = (urn: string, messages: readonly string[]) => Promise<void>;

/**
 * A {@link ResourceLog} to the engine at `address`; a message the engine cannot take (no engine there,
 * as in tests of the plugin alone) goes to `fallback` instead, so no note is lost.
 */
export function engineLog(address: string | undefined, fallback: Note = noteToStderr): ResourceLog {
  if (address === undefined) return (_urn, messages) => Promise.resolve(messages.forEach(fallback));
  let client: EngineClient | undefined;
  const send = (urn: string, message: string): Promise<void> =>
    new Promise((resolve) => {
      client ??= new EngineClient(address, grpc.credentials.createInsecure());
      const request = new LogRequest().setSeverity(LogSeverity.INFO).setUrn(urn).setMessage(message);
      client.log(request, (error) => {
        if (error !== null) fallback(message);
        resolve();
      });
    });
  return async (urn, messages) => {
    for (const message of messages) await send(urn, message);
  };
}
