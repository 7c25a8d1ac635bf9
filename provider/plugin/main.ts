/**
 * `pulumi-resource-notification-handlers`: the provider as a resource provider plugin, for programs in
 * every language (the handshake with the engine: `./lifecycle`); run with a command instead of the
 * engine's address, it runs that command (`./command-line`).
 *
 *     node dist/provider/plugin/main.js <engine-address>
 *     node dist/provider/plugin/main.js recover [options]
 */
import "../compile-cache";

import { processIo } from "../../cli/io";
import { isCommandLine, runCommandLine } from "./command-line";
import { runAsPlugin } from "./lifecycle";
import { startPluginServer } from "./server";
import { pluginVersion } from "./version";

const args = process.argv.slice(2);
if (isCommandLine(args)) {
  void runCommandLine(args, processIo, pluginVersion()).then((code) => {
    process.exitCode = code;
  });
} else {
  runAsPlugin(startPluginServer);
}
