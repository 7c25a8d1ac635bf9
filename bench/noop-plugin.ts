/**
 * A plugin of the `notification-handlers` package that does nothing, for `bench:engine --yaml`: the
 * same gRPC plumbing (`provider/plugin/serve.ts`), handshake (`provider/plugin/lifecycle.ts`) and
 * single-executable build (`scripts/release/build-plugin.ts`) as the real plugin, with operations that answer
 * at once without I/O. Set beside the real plugin, it shows what the engine and the plugin's plumbing
 * cost by themselves. GetPluginInfo and GetSchema are the real plugin's, so Pulumi YAML checks the
 * same program against the same schema.
 */
import { randomUUID } from "node:crypto";

import {
  CheckResponse,
  ConfigureResponse,
  CreateResponse,
  DiffResponse,
  ReadResponse,
  UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

import { runAsPlugin } from "../provider/plugin/lifecycle";
import { packageInfo } from "../provider/plugin/package-info";
import { type ServedMethods, servePlugin } from "../provider/plugin/serve";
import { unary } from "../provider/plugin/unary";

/** The no-op's methods (no lookups, no components): the inputs come back as they came (secrets still wrapped), nothing is written. */
function noopProvider(version: string): Omit<ServedMethods, "invoke" | "construct"> {
  return {
    ...packageInfo(version),
    checkConfig: unary((request) => new CheckResponse().setInputs(request.getNews())),
    diffConfig: unary(() => new DiffResponse().setChanges(DiffResponse.DiffChanges.DIFF_NONE)),
    configure: unary(() =>
      new ConfigureResponse().setAcceptsecrets(true).setSupportspreview(true).setAcceptresources(false),
    ),
    check: unary((request) => new CheckResponse().setInputs(request.getNews())),
    diff: unary(() => new DiffResponse().setChanges(DiffResponse.DiffChanges.DIFF_NONE)),
    create: unary((request) =>
      new CreateResponse()
        .setId(request.getPreview() ? "" : randomUUID())
        .setProperties(request.getProperties()),
    ),
    read: unary((request) =>
      new ReadResponse()
        .setId(request.getId())
        .setProperties(request.getProperties())
        .setInputs(request.getInputs()),
    ),
    update: unary((request) => new UpdateResponse().setProperties(request.getNews())),
    delete: unary(() => new Empty()),
    cancel: unary(() => new Empty()),
  };
}

runAsPlugin((version) => servePlugin(noopProvider(version)));
