#!/usr/bin/env node
/**
 * The `notification-handlers` command: `export` writes an account's handlers as a Pulumi project,
 * `recover` records what a cut-off deploy's pending creates made, `summary` turns `pulumi preview --json` into Markdown for a pull request or a drift check,
 * `validate` checks handler-set files.
 */
import { packageVersion } from "../provider/for-cli";
import { EXPORT_USAGE, exportCommand } from "./export";
import { type CliIo, UsageError, processIo, reportFailure } from "./io";
import { recoverCommand, recoverUsage } from "./recover";
import { summaryCommand, summaryUsage } from "./summary";
import { VALIDATE_USAGE, validateCommand } from "./validate";

const USAGE = `Usage: notification-handlers <command> [options]

Commands:
  export    write an account's handlers as a Pulumi project that takes them over
  recover   after a deploy was cut off, record the handlers its pending creates made
  summary   turn \`pulumi preview --json\` into a Markdown summary of handler changes
  validate  check handler-set YAML files before a preview
  version   print this package's version

\`notification-handlers <command> --help\` describes a command.

${EXPORT_USAGE}

${recoverUsage("notification-handlers")}

${summaryUsage("notification-handlers")}

${VALIDATE_USAGE}`;

/** Runs the command line `args`; resolves to the exit code. */
async function main(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case "export":
        return await exportCommand(rest, io, packageVersion());
      case "recover":
        return await recoverCommand(rest, io);
      case "summary":
        return await summaryCommand(rest, io);
      case "validate":
        return validateCommand(rest, io);
      case "version":
      case "--version":
        io.stdout.write(`${packageVersion()}\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(
          `unknown command "${command}": use export, recover, summary, validate or version`,
        );
    }
  } catch (error) {
    return reportFailure("notification-handlers", error, io);
  }
}

if (require.main === module) {
  void main(process.argv.slice(2), processIo).then((code) => {
    process.exitCode = code;
  });
}
