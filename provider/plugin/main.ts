/**
 * The resource provider plugin, for programs in every language, as the engine starts it (the
 * handshake: `./lifecycle`). The executable users install also runs commands:
 * `cli/plugin-executable.ts` is its entry.
 *
 *     node dist/provider/plugin/main.js <engine-address>
 */
import "../core/compile-cache";

import { runAsPlugin } from "./lifecycle";
import { startPluginServer } from "./server";

runAsPlugin(startPluginServer);
