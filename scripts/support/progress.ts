/**
 * Progress of the long builds (the engine, the plugin, the SDKs): a line when a step starts and one
 * with its duration when it ends, to a `log` the caller chooses. Their commands log to stderr, since
 * stdout carries what scripts read (`npm run -s engine` prints PATH folders).
 */

/** Where progress lines go, one line a call, without its newline. */
export type ProgressLog = (line: string) => void;

/** Progress to stderr, for a script run as a command. */
export const toStderr: ProgressLog = (line) => process.stderr.write(`${line}\n`);

/** A duration for people: `0.4 s`, `12 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Runs `work`, saying on `log` that `what` starts (`what...`) and, once it is done, how long it took. */
export async function step<T>(log: ProgressLog, what: string, work: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  log(`${what}...`);
  const result = await work();
  log(`  done in ${formatDuration(performance.now() - started)}`);
  return result;
}
