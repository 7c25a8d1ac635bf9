/**
 * The command's plumbing: its streams, environment, folder and signals (tests pass their own), the two
 * kinds of failure, and how a failure is reported. The usage error and the report are the convention
 * the server's command follows too, so they live in the package both share (shared/command-line.ts).
 */
export { UsageError, parseCommandLine, reportFailure } from "../shared/command-line";

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

/** A count and its noun, in the plural unless it is one: "1 secret value", "2 handlers". */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;
