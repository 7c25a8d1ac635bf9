/**
 * The dynamic provider object that Pulumi serializes into the state of every `NotificationHandler`.
 *
 * It is a thin shim on purpose: each method loads the real implementation (`./runtime`) by package
 * name inside the dynamic-provider process, so the serialized closure holds no client, no schema and
 * no credential (pulumi/pulumi#5294, #18997), and the code that runs is the installed package's.
 */
import type * as pulumi from "@pulumi/pulumi";

import type { HandlerInputs, HandlerOutputs } from "./inputs";
import type * as Runtime from "./runtime";

/** The package path of the implementation, resolved from the program's folder at run time. */
function runtime(): typeof Runtime {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- must resolve in the provider process, not be captured
  return require("pulumi-notification-handlers/provider/runtime") as typeof Runtime;
}

/** The provider shared by every `NotificationHandler` (one instance: Pulumi caches its serialization). */
export const provider: pulumi.dynamic.ResourceProvider<HandlerInputs, HandlerOutputs> = {
  configure: (req) => runtime().configure(req),
  check: (olds, news) => runtime().check(olds, news),
  diff: (id, olds, news) => runtime().diff(id, olds, news),
  create: (inputs) => runtime().create(inputs),
  read: (id, props) => runtime().read(id, props),
  update: (id, olds, news) => runtime().update(id, olds, news),
  delete: (id, props) => runtime().remove(id, props),
};
