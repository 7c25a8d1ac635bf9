/**
 * The plumbing both commands share, `notification-handlers` and `notification-handlers-server`:
 * their streams, environment, folder and signals (tests pass their own), the two kinds of failure,
 * and how a failure is reported. A leaf: it imports nothing of the project, so the server's command
 * uses it without depending on the rest of `cli/`.
 */

/** The streams, environment, folder and process hooks a command runs with. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Read in full when a command takes its input from stdin. */
  readonly stdin: NodeJS.ReadableStream;
  /** What options fall back to. */
  readonly env: NodeJS.ProcessEnv;
  /** Relative paths are read from here. */
  readonly cwd: string;
  /** Registers what to do on SIGINT and SIGTERM. */
  readonly onSignal: (handler: (signal: NodeJS.Signals) => void) => void;
}

/** The running process's. */
export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  onSignal: (handler) => {
    process.on("SIGINT", handler);
    process.on("SIGTERM", handler);
  },
};

/** A command-line mistake: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command understood what to do, but could not do it: exit code 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

/**
 * Reports a failure on one line of stderr, after the command's name, and resolves to its exit code:
 * 2 for a usage mistake (with a pointer to `--help`), 1 for anything else.
 */
export function reportFailure(command: string, error: unknown, io: Pick<CliIo, "stderr">): number {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  if (error instanceof UsageError) {
    io.stderr.write(`${command}: ${message} (see --help)\n`);
    return 2;
  }
  io.stderr.write(`${command}: ${message}\n`);
  return 1;
}

/** The whole of a stream, as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
