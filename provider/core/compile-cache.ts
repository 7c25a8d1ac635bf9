/**
 * Loaded first by `../dynamic/runtime` and by the plugin's `../plugin/main`: turns on Node's on-disk compile
 * cache before the provider's modules load. Every `pulumi preview` and `pulumi up` starts a new
 * provider process, which compiles the client, undici and zod again before it answers the engine's
 * first call; with the cache that start costs about a third less. The cache lives where Node keeps
 * it by default (`NODE_COMPILE_CACHE`, else the system's temporary folder);
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off. A Node.js without the API, or a folder that cannot
 * be written, only means no cache.
 *
 * The engine ends the process with a signal, before Node would write the cache at exit, so it is
 * written once the modules that load with it have loaded.
 */
import * as nodeModule from "node:module";

const { enableCompileCache, flushCompileCache } = nodeModule as {
  enableCompileCache?: () => unknown;
  flushCompileCache?: () => void;
};
try {
  enableCompileCache?.();
  setImmediate(() => flushCompileCache?.());
} catch {
  // No cache: the modules compile as they would without it.
}
