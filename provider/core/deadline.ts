/**
 * A resource's `customTimeouts`: the engine sends each create, update and delete the seconds it may
 * take. Past that, the operation retries nothing and starts no new write, as after a cancel; a
 * request already sent finishes, so what it did is still known. The deadline follows the operation's
 * own calls (AsyncLocalStorage), so operations running beside it keep theirs.
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

/** Runs `operation` with a deadline `timeoutSeconds` from now; 0 (the engine's "none") runs it as it is. */
export function withDeadline<T>(
  what: string,
  timeoutSeconds: number,
  operation: () => Promise<T>,
): Promise<T> {
  if (!(timeoutSeconds > 0)) return operation();
  return current.run({ what, timeoutSeconds, at: Date.now() + timeoutSeconds * 1000 }, operation);
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
