/**
 * A resource's `customTimeouts`: each create, update and delete may take so many seconds. Past that,
 * the operation retries nothing and starts no new write, as after a cancel; a request already sent is
 * awaited, so what it did is known, and the operation then fails naming its timeout (recording the
 * handler it made or changed: the caller's `late`). The deadline follows the operation's own calls
 * (AsyncLocalStorage), so operations running beside it keep theirs.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Why an operation stopped at its deadline. */
export class OperationTimeoutError extends Error {
  constructor(what: string, timeoutSeconds: number, stopped: string) {
    super(
      `${what} did not finish within its custom timeout of ${timeoutSeconds} s: ${stopped} was not started`,
    );
    this.name = "OperationTimeoutError";
  }
}

interface Deadline {
  /** What the operation is, as a message names it. */
  what: string;
  timeoutSeconds: number;
  /** When it ends, in `Date.now()` milliseconds. */
  at: number;
}

const current = new AsyncLocalStorage<Deadline>();

/**
 * Runs `operation` with a deadline `timeoutSeconds` from now; none or 0 (the engine's "none") runs it
 * as it is. An operation that finishes past its deadline fails with `late(result, message)`.
 */
export async function withDeadline<T>(
  what: string,
  timeoutSeconds: number | undefined,
  operation: () => Promise<T>,
  late: (result: T, message: string) => Error = (_result, message) => new Error(message),
): Promise<T> {
  if (timeoutSeconds === undefined || !(timeoutSeconds > 0)) return operation();
  const started = Date.now();
  const at = started + timeoutSeconds * 1000;
  const result = await current.run({ what, timeoutSeconds, at }, operation);
  const took = Date.now() - started;
  if (took <= timeoutSeconds * 1000) return result;
  throw late(
    result,
    `${what} did not finish within its custom timeout of ${timeoutSeconds} s: it took ` +
      `${(took / 1000).toFixed(1)} s, awaiting a request already sent`,
  );
}

/** Throws once the calling operation's deadline has passed, naming what would have started. */
export function throwIfPastDeadline(stopped: string): void {
  const deadline = current.getStore();
  if (deadline !== undefined && Date.now() >= deadline.at) {
    throw new OperationTimeoutError(deadline.what, deadline.timeoutSeconds, stopped);
  }
}

/** How long the calling operation may still wait, in milliseconds (Infinity without a deadline). */
export function timeLeftMs(): number {
  const deadline = current.getStore();
  return deadline === undefined ? Number.POSITIVE_INFINITY : Math.max(0, deadline.at - Date.now());
}
