/**
 * The provider's source as every resource records it (`__provider`): one short line that, run as
 * Pulumi's dynamic-provider host runs it, hands over the package's provider with every method.
 */
import { runInNewContext } from "node:vm";

import { describe, expect, it } from "vitest";

import { PROVIDER_SOURCE } from "../../provider/provider";
import * as runtime from "../../provider/runtime";

describe("the recorded provider source", () => {
  it("loads the installed package's provider by name, with the seven methods the engine calls", () => {
    const required: string[] = [];
    const exports: { handler?: () => unknown } = {};
    // As requireFromString does in the host: the source compiled as a module of its own.
    runInNewContext(PROVIDER_SOURCE, {
      exports,
      require: (name: string) => {
        required.push(name);
        return runtime;
      },
    });
    const provider = exports.handler?.() as Record<string, unknown>;
    expect(required).toEqual(["pulumi-notification-handlers/provider/runtime"]);
    for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"])
      expect(typeof provider[method], method).toBe("function");
    expect(provider).toBe(runtime.provider);
  });

  it("stays short: it is written into the inputs and the outputs of every resource", () => {
    expect(PROVIDER_SOURCE.length).toBeLessThan(120);
  });
});
