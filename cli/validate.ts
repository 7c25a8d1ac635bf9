/**
 * `notification-handlers validate FILE...`: checks handler-set files offline, with the rules the
 * `HandlerSet` component applies, and prints every problem as `FILE:LINE:COLUMN: key.field: rule`.
 */

import { formatProblem, readSetFiles, readSetSources } from "../provider/for-cli";
import { type CliIo, UsageError, counted, parseCommandLine } from "./io";

export const VALIDATE_USAGE = `Usage:
  notification-handlers validate FILE...

  Checks handler-set YAML files (docs/handler-sets.md) as one set, without a network or a stack:
  the catalog's rules, keys unique across the files, no secret written in a file. Prints each
  problem as FILE:LINE:COLUMN: key.field: rule. Exits 0 when there is none, 1 when there are
  problems, 2 on bad usage.`;

/** Runs `validate` with its arguments; returns the exit code. */
export function validateCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine(args, { help: { type: "boolean", short: "h" } }, true);
  if (values.help === true) {
    io.stdout.write(`${VALIDATE_USAGE}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("name the files to check");

  const { sources, problems: unreadable } = readSetSources(positionals, io.cwd);
  const reading = readSetFiles(sources);
  const problems = [...unreadable, ...reading.problems];
  for (const problem of problems) io.stdout.write(`${formatProblem(problem)}\n`);
  const files = counted(positionals.length, "file");
  if (problems.length > 0) {
    io.stderr.write(`${counted(problems.length, "problem")} in ${files}\n`);
    return 1;
  }
  io.stdout.write(`${counted(reading.entries.length, "handler")} in ${files}: no problems\n`);
  return 0;
}
