/**
 * A partial failure through the plugin, as `e2e/errors` ("a create whose read-back fails") proves it
 * for the dynamic provider: the create is stored, then every read that would verify it loses its answer.
 * The gRPC error carries the `ErrorResourceInitFailed` detail the engine reads to record the handler
 * anyway: its id, its properties with the credentials still wrapped as secrets, and the reason. That
 * the engine then records it is proved under the engine: `e2e/plugin-resource-options`.
 */
import type * as grpc from "@grpc/grpc-js";
import { CheckRequest, CreateRequest, ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type TestServer, startServer } from "../support/servers/reference-server";
import { PluginProcess, SECRET, TYPE, struct, urnOf } from "../support/plugin-process";

const SLACK_URL = "https://hooks.slack.com/services/T0PARTIAL/B0PARTIAL/s3cr3tP4rt14l";

let server: TestServer | undefined;
let plugin: PluginProcess | undefined;
let key = "";

beforeAll(async () => {
  // Reads of single handlers are handled, then their connection is cut: a lost answer.
  server = await startServer({ cutAfterHandling: (method, path) => method === "GET" && /\/\d+$/.test(path) });
  key = await server.newKey();
  plugin = await PluginProcess.start();
  await plugin.configureFor(server.url, key, { maxRetries: 1 });
});

afterAll(async () => {
  await plugin?.stop();
  await server?.close();
});

/** The `ErrorResourceInitFailed` detail of a gRPC error, as the engine unpacks it. */
function initFailure(error: grpc.ServiceError): ErrorResourceInitFailed {
  const [bytes] = error.metadata.get("grpc-status-details-bin");
  expect(bytes).toBeInstanceOf(Buffer);
  const details = Status.deserializeBinary(bytes as Buffer).getDetailsList();
  expect(details.map((d) => d.getTypeUrl())).toEqual([
    "type.googleapis.com/pulumirpc.ErrorResourceInitFailed",
  ]);
  const detail = details[0]!.unpack(
    (bytes) => ErrorResourceInitFailed.deserializeBinary(bytes),
    "pulumirpc.ErrorResourceInitFailed",
  );
  if (detail === null) throw new Error("the detail is not an ErrorResourceInitFailed");
  return detail;
}

describe("a create whose read-back fails, through the plugin", () => {
  it("fails with the handler it made in the ErrorResourceInitFailed detail, its webhook secret", async () => {
    const checked = await plugin!.check(
      new CheckRequest()
        .setUrn(urnOf("ops"))
        .setType(TYPE)
        .setNews(struct({ type: "slack", name: "Ops", slack: SECRET(SLACK_URL) })),
    );
    const error = await plugin!
      .create(new CreateRequest().setUrn(urnOf("ops")).setType(TYPE).setProperties(checked.getInputs()))
      .then(
        () => undefined,
        (e: unknown) => e as grpc.ServiceError,
      );
    expect(error, "the create failed").toBeDefined();

    const made = await server!.handlers(key);
    expect(made).toHaveLength(1);
    const id = made[0]!.id;
    expect(error!.details).toMatch(new RegExp(`^handler ${id} exists, but `));

    const detail = initFailure(error!);
    expect(detail.getId()).toBe(String(id));
    expect(detail.getReasonsList()).toEqual([error!.details]);
    expect(detail.getProperties()?.toJavaScript()).toMatchObject({
      type: "slack",
      name: "Ops",
      isEnabled: true,
      handlerId: id,
      slack: SECRET(SLACK_URL),
      settings: SECRET({ slack: SLACK_URL }),
    });
    // The webhook travels only in the two secrets above: in no other property, nor in the message.
    const properties = JSON.stringify(detail.getProperties()?.toJavaScript());
    expect(properties.split(SLACK_URL)).toHaveLength(3);
    expect(error!.details).not.toContain(SLACK_URL);
    expect(plugin!.stderr).not.toContain(SLACK_URL);
    expect(plugin!.stderr).not.toContain(key);
  });
});
