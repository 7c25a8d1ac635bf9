/**
 * The dynamic provider as the engine stores it: the `__provider` property of every
 * `NotificationHandler`, the source of a module whose `handler()` returns the provider object.
 *
 * Pulumi's `dynamic.Resource` would serialize a provider closure into that property; for this
 * provider's seven methods that is about 2.5 KB, written into the inputs and the outputs of every
 * resource, and the engine rewrites the whole state after each step (the state grew to three times
 * the size of a no-op provider's). This is the same kind of module, written by
 * hand: one line that loads the installed package's provider by name inside the dynamic-provider
 * process. So the state holds no client, schema or credential (pulumi/pulumi#5294, #18997), and the
 * code that runs is the installed package's.
 *
 * What it relies on: the dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider/index.js`,
 * `getProvider`) runs `requireFromString(props.__provider).handler()` once per distinct string and
 * process, and `require` inside it resolves from the host's working folder, the program's.
 */

/** The reserved property that holds the provider's source (see the module comment). */
export const PROVIDER_KEY = "__provider";

/** The provider's source: a module whose `handler()` returns the package's provider object. */
export const PROVIDER_SOURCE =
  'exports.handler = () => require("pulumi-notification-handlers/provider/runtime").provider;\n';
