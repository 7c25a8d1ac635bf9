/**
 * The plugin's errors as gRPC statuses: a plain error, a refused request, and a partial failure,
 * which carries the handler (its outputs, credentials secret) in the `ErrorResourceInitFailed`
 * detail the engine reads to record it.
 */
import * as grpc from "@grpc/grpc-js";
import { ErrorResourceInitFailed } from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { describe, expect, it } from "vitest";

import { partialFailure } from "../../provider/core/partial-failure";
import { InvalidRequestError, statusOf } from "../../provider/plugin/unary";

const SECRET = (value: unknown): Record<string, unknown> => ({
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  value,
});

describe("statusOf", () => {
  it("answers a plain error UNKNOWN with its message, and a refused request INVALID_ARGUMENT", () => {
    expect(statusOf(new Error("boom"))).toMatchObject({ code: grpc.status.UNKNOWN, details: "boom" });
    expect(statusOf(new InvalidRequestError("no such type"))).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: "no such type",
    });
    expect(statusOf(new Error("boom")).metadata).toBeUndefined();
  });

  it("packs a partial failure as ErrorResourceInitFailed, the handler's credentials secret", () => {
    const outputs = {
      handlerId: 7,
      name: "Ops",
      slack: "https://hooks.slack.com/x",
      settings: { slack: "x" },
    };
    const status = statusOf(partialFailure("handler 7 exists, but reading it back failed", 7, outputs));
    expect(status).toMatchObject({
      code: grpc.status.UNKNOWN,
      details: "handler 7 exists, but reading it back failed",
    });
    const [raw] = status.metadata?.get("grpc-status-details-bin") ?? [];
    const rich = Status.deserializeBinary(raw as Buffer);
    expect(rich.getCode()).toBe(grpc.status.UNKNOWN);
    expect(rich.getDetailsList().map((d) => d.getTypeUrl())).toEqual([
      "type.googleapis.com/pulumirpc.ErrorResourceInitFailed",
    ]);
    const detail = rich
      .getDetailsList()[0]
      ?.unpack(
        (bytes) => ErrorResourceInitFailed.deserializeBinary(bytes),
        "pulumirpc.ErrorResourceInitFailed",
      );
    expect(detail?.getId()).toBe("7");
    expect(detail?.getReasonsList()).toEqual(["handler 7 exists, but reading it back failed"]);
    expect(detail?.getProperties()?.toJavaScript()).toEqual({
      handlerId: 7,
      name: "Ops",
      slack: SECRET("https://hooks.slack.com/x"),
      settings: SECRET({ slack: "x" }),
    });
  });
});
