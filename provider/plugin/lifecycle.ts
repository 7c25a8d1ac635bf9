/**
 * A plugin process's life as the engine drives it: the engine starts it with optional flags and its
 * own address last; the plugin answers with its port and a newline as the first bytes on stdout, then
 * serves until the engine ends it with a signal.
 */
import type { ServingPlugin } from "./serve";
import { packageVersion } from "../version";

/** Whether an argument is an address as the engine passes its own: `host:port`. */
export const isEngineAddress = (arg: string): boolean => /:\d+$/.test(arg);

/** The engine's address: the last of the arguments the engine starts a plugin with. */
function engineAddressOf(args: readonly string[]): string | undefined {
  const last = args.at(-1);
  return last !== undefined && isEngineAddress(last) ? last : undefined;
}

/**
 * Starts the server `start` makes for this package's version and the engine's address, and serves as
 * a plugin until ended.
 */
export function runAsPlugin(start: (version: string, engine?: string) => Promise<ServingPlugin>): void {
  start(packageVersion(), engineAddressOf(process.argv.slice(2))).then(
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
}
