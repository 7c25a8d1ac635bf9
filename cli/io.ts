/**
 * What the `notification-handlers` commands share: their streams and environment (tests pass their
 * own), and the two kinds of failure, each reported on stderr in one paragraph.
 */

/** The streams, environment and folder a command runs with. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Read in full when a command takes its input from stdin. */
  readonly stdin: NodeJS.ReadableStream;
  readonly env: NodeJS.ProcessEnv;
  /** Relative paths are read from here. */
  readonly cwd: string;
}

/** A command-line mistake: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command understood what to do, but could not do it: exit code 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

/** The whole of a stream, as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}
