/**
 * The provider's calls, each routed to its file over one {@link ProviderContext}: loaded by `./server`
 * on the engine's first call that needs them.
 */
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

import { ProviderContext } from "../core/context";
import { checkConfig, configure, diffConfig } from "./config-calls";
import { construct } from "./construct";
import { engineLog } from "./engine-log";
import { invoke } from "./invoke";
import { check, create, diff, read, remove, update } from "./resource-calls";
import type { ProviderCalls } from "./serve";
import { unary } from "./unary";

/**
 * The calls over a new context (settings, clients, the cancel flag), shared by them all; notes on a
 * resource go to the engine at `engine`.
 */
export function providerCalls(engine: string | undefined, ctx = new ProviderContext()): ProviderCalls {
  const log = engineLog(engine);
  return {
    checkConfig: unary(checkConfig),
    diffConfig: unary(diffConfig),
    configure: unary((request) => configure(ctx, request)),
    check: unary((request) => check(ctx, request, log)),
    diff: unary((request) => diff(ctx, request, log)),
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
