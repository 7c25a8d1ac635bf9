/**
 * The engine's cancel (Ctrl-C in `pulumi up`): once asked, the provider retries nothing and starts
 * no new write; requests already sent finish, so what they did is still recorded.
 */
import { throwIfPastDeadline, timeLeftMs } from "./deadline";
import type { HandlersApi } from "./handlers-api";

/** Why an operation stopped after a cancel. */
export class OperationCancelledError extends Error {
  constructor(what: string) {
    super(`the operation was cancelled: ${what} was not started`);
    this.name = "OperationCancelledError";
  }
}

/** One process's cancel flag, and the two places that observe it: the client's waits and the writes. */
export class Cancellation {
  private requested = false;

  /** Whether the engine asked to cancel. */
  get cancelled(): boolean {
    return this.requested;
  }

  /** Records the engine's request; nothing undoes it (the engine ends the process after a cancel). */
  cancel(): void {
    this.requested = true;
  }

  /** Throws once cancelled, or past the calling operation's custom timeout, naming what would have started. */
  throwIfCancelled(what: string): void {
    if (this.requested) throw new OperationCancelledError(what);
    throwIfPastDeadline(what);
  }

  /**
   * The client's wait before a retry (or for the rate-limit window): after a cancel it fails
   * instead, so no further attempt is made; a wait that would outlast the operation's custom timeout
   * ends with it.
   */
  readonly sleep = async (ms: number): Promise<void> => {
    this.throwIfCancelled("a retry");
    await new Promise((resolve) => setTimeout(resolve, Math.min(ms, timeLeftMs())));
    this.throwIfCancelled("a retry");
  };

  /** `api` whose creates, updates and deletes fail once cancelled; reads go on. */
  guardWrites(api: HandlersApi): HandlersApi {
    return {
      list: (...args) => api.list(...args),
      retrieve: (...args) => api.retrieve(...args),
      create: (...args) => {
        this.throwIfCancelled("a create");
        return api.create(...args);
      },
      update: (...args) => {
        this.throwIfCancelled("an update");
        return api.update(...args);
      },
      delete: (...args) => {
        this.throwIfCancelled("a delete");
        return api.delete(...args);
      },
    };
  }
}
