/**
 * What the provider tells the user while it works. Lines go to stderr, which the engine shows under
 * the stack's diagnostics.
 */

/** Writes one diagnostic line. */
export type Note = (message: string) => void;

/** The default {@link Note}: stderr, prefixed with the provider's name. */
export const noteToStderr: Note = (message) => {
  process.stderr.write(`notification-handlers: ${message}\n`);
};

const PACING_NOTE_EVERY_MS = 10_000; // 10 s

/**
 * Summarizes the client's rate-limit pacing at most every few seconds: pacing waits come one per
 * request, far too many to print each.
 */
export function pacingNotes(
  note: Note,
  stats: () => { requests: number; pacedMs: number } | undefined,
  now: () => number = Date.now,
): () => void {
  let last = 0;
  return () => {
    const current = stats();
    const at = now();
    if (current === undefined || at - last < PACING_NOTE_EVERY_MS) return;
    last = at;
    note(
      `pacing requests to the server's rate limit: ${current.requests} requests so far, ` +
        `${Math.round(current.pacedMs / 1000)} s of waiting in total (summed over concurrent requests)`,
    );
  };
}
