/**
 * The module every `NotificationHandler`'s state records as `__provider` (docs/upgrading.md), as code
 * the compiler checks against the runtime it calls. Pulumi's dynamic-provider process runs the
 * recorded text as a module of its own (`exports` and `require` its own), to get the provider.
 */
import type * as runtime from "./runtime";

/**
 * Its one statement is the recorded module: `providerSource` takes it from the compiled function's
 * text, without whitespace (it holds no string, so none is significant), and writes each parameter
 * in capitals as its value. Nothing else goes into the body, not even a comment: it would be recorded.
 *
 * @param RUNTIME - the runtime's module, required by name or through `require.resolve` from folders
 * @param CONTRACT - the state contract the handler is written under
 * @param VERSION - the version of this package that writes it
 */
export function recordedModule(
  exports: { handler?: () => typeof runtime.provider },
  require: (module: string) => typeof runtime,
  RUNTIME: string,
  CONTRACT: number,
  VERSION: string,
): void {
  exports.handler = () => require(RUNTIME).forContract(CONTRACT, VERSION);
}
