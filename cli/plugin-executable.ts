/**
 * The plugin's executable, `pulumi-resource-notification-handlers`, as `npm run build:plugin` bundles
 * it: the resource provider plugin when the engine starts it (`provider/plugin/lifecycle.ts`), or a
 * command a person or a workflow runs (`./plugin-command-line`), told apart by the first argument.
 */
import { packageVersion, runPlugin } from "../provider/for-cli";
import { processIo } from "./io";
import { isCommandLine, runCommandLine } from "./plugin-command-line";

const args = process.argv.slice(2);
if (isCommandLine(args)) {
  void runCommandLine(args, processIo, packageVersion()).then((code) => {
    process.exitCode = code;
  });
} else {
  runPlugin();
}
