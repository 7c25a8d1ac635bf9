/**
 * The plugin's executable run by a person or a workflow rather than by the engine: it carries
 * `recover` and `summary` (the same code as `notification-handlers recover` and `summary`), so a runner
 * with no Node.js recovers a cut-off deploy (docs/interrupted-deploys.md) and summarizes a preview
 * with the executable `pulumi plugin install` put there.
 * The engine starts a plugin with optional flags (`--logtostderr`, `-v=9`, `--tracing URL`) and its
 * own address `host:port` last, so a first argument that is neither a flag nor an address is a command.
 */
import { isEngineAddress, PLUGIN_EXECUTABLE } from "../provider/for-cli";
import { type CliIo, UsageError, reportFailure } from "./io";

// The commands are loaded only when run: the engine's starts of the plugin never need them.
const usage = async (): Promise<string> => `Usage: ${PLUGIN_EXECUTABLE} <command> [options]

The notification-handlers resource provider plugin. Pulumi starts it with its own address as the
last argument; run by hand, it carries a command for machines with no Node.js.

Commands:
  recover   after a deploy was cut off, record the handlers its pending creates made
  summary   turn \`pulumi preview --json\` into a Markdown summary of handler changes
  version   print the plugin's version

${(await import("./recover.js")).recoverUsage(PLUGIN_EXECUTABLE)}

${(await import("./summary.js")).summaryUsage(PLUGIN_EXECUTABLE)}`;

/** The words a person runs the executable with; anything else starting with `-` is the engine's. */
const COMMANDS = new Set(["recover", "summary", "version", "--version", "help", "--help", "-h"]);

/** Whether `args` ask for a command (or are no plugin start at all) rather than the engine's start of the plugin. */
export function isCommandLine(args: readonly string[]): boolean {
  const [first] = args;
  if (first === undefined) return true; // the engine always passes its address
  if (COMMANDS.has(first)) return true;
  // Flags first, or only the address (`127.0.0.1:4321`, `[::1]:4321`): the engine's start.
  return !first.startsWith("-") && !isEngineAddress(first);
}

/** Runs the command `args` name; resolves to its exit code (2 for a usage mistake). */
export async function runCommandLine(args: string[], io: CliIo, version: string): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "recover": {
        const { recoverCommand } = await import("./recover.js");
        return await recoverCommand(rest, io, PLUGIN_EXECUTABLE);
      }
      case "summary": {
        const { summaryCommand } = await import("./summary.js");
        return await summaryCommand(rest, io, PLUGIN_EXECUTABLE);
      }
      case "version":
      case "--version":
        io.stdout.write(`${version}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(`${await usage()}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(
          `unknown command "${command}": use recover, summary or version (Pulumi starts the plugin with its address)`,
        );
    }
  } catch (error) {
    return reportFailure(PLUGIN_EXECUTABLE, error, io);
  }
}
