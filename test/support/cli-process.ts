/**
 * The compiled `notification-handlers` command run as a process, as the integration tests run it (or
 * another compiled entry that takes a command line: the plugin's).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";

const BIN = join(__dirname, "..", "..", "dist", "cli", "main.js");
/** The compiled entry of the plugin's executable, which also runs commands (`cli/plugin-executable.ts`). */
export const PLUGIN_ENTRY = join(__dirname, "..", "..", "dist", "cli", "plugin-executable.js");

/** What a run of the command gave. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled command (or the entry `options.bin`) in `cwd` with only the variables it reads
 * set, `input` on stdin.
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { input?: string; cwd?: string; bin?: string } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
  child.stdin.end(options.input ?? "");
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}
