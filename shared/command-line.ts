/**
 * The failure convention both commands follow, `notification-handlers` and
 * `notification-handlers-server`: a usage mistake exits 2 with a pointer to `--help`, any other
 * failure exits 1, each on one line of stderr after the command's name. A leaf.
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";

/** A command-line mistake: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The `options` of `args`, strictly, by Node's `parseArgs`; a mistake in them is a {@link UsageError}. */
export function parseCommandLine<T extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Reports a failure on one line of stderr, after the command's name, and resolves to its exit code:
 * 2 for a usage mistake (with a pointer to `--help`), 1 for anything else.
 */
export function reportFailure(
  command: string,
  error: unknown,
  io: { readonly stderr: NodeJS.WritableStream },
): number {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  if (error instanceof UsageError) {
    io.stderr.write(`${command}: ${message} (see --help)\n`);
    return 2;
  }
  io.stderr.write(`${command}: ${message}\n`);
  return 1;
}
