/**
 * `pulumi-resource-notification-handlers`: the provider as a resource provider plugin, for programs in
 * every language (the handshake with the engine: `./lifecycle`).
 *
 *     node dist/provider/plugin/main.js <engine-address>
 */
import "../compile-cache";

import { runAsPlugin } from "./lifecycle";
import { startPluginServer } from "./server";

runAsPlugin(startPluginServer);
