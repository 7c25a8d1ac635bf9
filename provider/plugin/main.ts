/**
 * `pulumi-resource-notification-handlers`: the provider as a resource provider plugin, for programs in
 * every language. The engine starts it with optional flags and its own address last; the plugin
 * answers with its port and a newline as the first bytes on stdout, then serves until it is ended.
 *
 *     node dist/provider/plugin/main.js <engine-address>
 */
import "../compile-cache";

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { startPluginServer } from "./server";

/** The version the single executable was built with (scripts/build-plugin.ts); unset under plain Node.js. */
declare const PLUGIN_VERSION: string | undefined;

/** This package's version: the executable's, else its package.json's. */
function packageVersion(): string {
  if (typeof PLUGIN_VERSION === "string") return PLUGIN_VERSION;
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as {
    version: string;
  };
  return manifest.version;
}

startPluginServer(packageVersion()).then(
  (server) => {
    process.stdout.write(`${server.port}\n`);
    // The engine ends its plugins with a signal once it is done with them.
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        server.close();
        process.exit(0);
      });
    }
  },
  (error: unknown) => {
    process.stderr.write(`notification-handlers: the plugin could not start: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
