/**
 * The reads that verify writes, shared. After a create, an update or a delete the provider checks
 * what the server stored; instead of one read per handler, the checks of writes answered at about the
 * same time share one list request (the newest 1000 handlers, newest first). A list proves what it
 * shows; it proves a handler absent only when it holds the whole account, or when its ids descend
 * strictly (the server honoured the order, which 2025 instances do not promise) and the handler's id
 * lies within the page's range. Anything a list cannot prove is read alone.
 *
 * When the checks run: writes come from the engine's operations, at most its parallelism at once
 * (`--parallel`, by default 4 per core: 8 at once on a 2-core machine). A check waits while other
 * operations of this process are still writing (up to {@link DEFAULT_MAX_WAIT_MS}). The list goes
 * out as soon as every operation in progress waits for it and as many are in progress as the most
 * seen at once, and as were at the list before; otherwise once no operation has started for a window.
 * The engine starts its operations one after another, a few milliseconds apart on a quiet machine and
 * far more on a busy one, so while their number still grows (its first wave) the window decides: a
 * wave cut short would leave the waves after it out of step, each verified by a list of its own. So
 * the window follows the engine's pace: at least {@link DEFAULT_BATCH_WINDOW_MS}, and twice the
 * longest recent pause between two starts (up to {@link MAX_PACE_MS}). One list verifies each wave of the engine's
 * writes, on a loaded machine too, and when a rate limit paces them one a second. A create-up of N
 * handlers costs N writes and about N / parallelism lists.
 */
import type { Page } from "../../sdk/client/core/pagination";
import type { NotificationHandlerRecord as ApiHandler } from "../../sdk/client/domain/resources/handler-parsing";
import type { Account } from "./account";
import { MAX_RESULTS_PER_PAGE } from "../../sdk/client/domain/list-rules";
import type { HandlersApi } from "./handlers-api";
import { type LiveHandler, toLive } from "./inputs";

/**
 * How long a batch of checks stays open after the last check or write arrived, when no write is in
 * flight: the engine starts the creates of a run one after another, tens of milliseconds apart.
 */
export const DEFAULT_BATCH_WINDOW_MS = 100;
/**
 * The longest a check waits for other operations still writing. Longer than a rate-limit window
 * (60 s) and its margin: when the window's budget is spent, the writes wait in the client's pacer,
 * and checks flushed meanwhile would each cost a list of their own.
 */
export const DEFAULT_MAX_WAIT_MS = 65_000; // 65 s

/** The longest pause between two starts that the window follows: a longer one is the engine having nothing to start. */
const MAX_PACE_MS = 1_000;

interface Waiter {
  resolve(live: LiveHandler | undefined): void;
  reject(error: unknown): void;
}

/** Counters, for tests and benchmarks. */
interface ReadBackStats {
  /** List requests made to verify writes. */
  lists: number;
  /** Checks answered by a list. */
  provenByList: number;
  /** Checks a list could not prove, read alone. */
  readAlone: number;
}

/** What a list page proves about the ids it was asked about. */
interface ListProof {
  /** Handlers the page shows. */
  shown: Map<number, LiveHandler>;
  /** Whether the page proves an id it does not show to be absent. */
  provesAbsent(id: number): boolean;
}

/** What the first page of a newest-first list proves (see the module comment). */
export function proofOf(
  page: Pick<Page<ApiHandler>, "data" | "meta">,
  pageSize: number = MAX_RESULTS_PER_PAGE,
): ListProof {
  const shown = new Map<number, LiveHandler>();
  for (const h of page.data) shown.set(h.id, toLive(h));
  const { total, total_pages } = page.meta;
  const whole =
    page.meta.page === 1 &&
    (total !== null
      ? total <= page.data.length
      : total_pages !== null
        ? total_pages <= 1
        : page.data.length < pageSize);
  let descending = true;
  for (let i = 1; i < page.data.length; i++) {
    if ((page.data[i - 1]?.id ?? 0) <= (page.data[i]?.id ?? 0)) descending = false;
  }
  const oldest = page.data.at(-1)?.id;
  return {
    shown,
    provesAbsent: (id) =>
      whole || (page.meta.page === 1 && descending && oldest !== undefined && id > oldest),
  };
}

/** Shared verifying reads (see the module comment). */
export class ReadBack {
  /** Counters since the process started. */
  readonly stats: ReadBackStats = { lists: 0, provenByList: 0, readAlone: 0 };

  private pending = new Map<number, Waiter[]>();
  /** When the oldest pending check was registered. */
  private pendingSince = 0;
  private timer: NodeJS.Timeout | undefined;
  private listing = false;
  /** Writes (with their checks) in progress, and the most seen at once: the engine's parallelism. */
  private operations = 0;
  private mostOperations = 0;
  /** {@link mostOperations} when the last list went out: a wave as large as that one is whole. */
  private mostAtLastList = 0;
  /** Checks registered and not yet answered. */
  private checks = 0;
  /** When the last operation started, and the engine's pace: the longest recent pause between two starts. */
  private lastStart = 0;
  private paceMs = 0;

  constructor(
    private readonly api: () => HandlersApi,
    private readonly account: Pick<Account, "read" | "observe">,
    private readonly windowMs = DEFAULT_BATCH_WINDOW_MS,
    private readonly maxWaitMs = DEFAULT_MAX_WAIT_MS,
  ) {}

  /**
   * Runs a write and its check as one operation: checks wait for operations still writing (see the
   * module comment).
   */
  async operation<T>(run: () => Promise<T>): Promise<T> {
    // The pause since the last start is the engine's pace, which the window follows (decaying, so
    // that one slow moment does not stay).
    const now = Date.now();
    if (this.lastStart > 0)
      this.paceMs = Math.min(Math.max(now - this.lastStart, 0.9 * this.paceMs), MAX_PACE_MS);
    this.lastStart = now;
    this.operations++;
    this.mostOperations = Math.max(this.mostOperations, this.operations);
    try {
      return await run();
    } finally {
      this.operations--;
      this.schedule();
    }
  }

  /**
   * The handler as the server stores it now, or undefined when it does not exist. Call it after the
   * write's answer arrived: only a list sent after this call answers it.
   */
  read(id: number): Promise<LiveHandler | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.pendingSince = Date.now();
      this.checks++;
      const done = (): void => {
        this.checks--;
      };
      const waiters = this.pending.get(id) ?? [];
      waiters.push({
        resolve: (live) => {
          done();
          resolve(live);
        },
        reject: (error) => {
          done();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      });
      this.pending.set(id, waiters);
      this.schedule();
    });
  }

  private schedule(): void {
    // One list at a time: checks arriving meanwhile wait for the next, which starts when it ends.
    if (this.listing || this.pending.size === 0) return;
    const now = Date.now();
    const deadline = this.pendingSince + this.maxWaitMs;
    let at: number;
    if (this.operations > this.checks && this.pending.size < MAX_RESULTS_PER_PAGE) {
      // Some operation is still writing: its check will join (up to the deadline).
      at = deadline;
    } else if (this.operations >= this.mostOperations && this.mostOperations === this.mostAtLastList) {
      // Every operation the engine runs at once is waiting here, as many as in the wave before:
      // nothing more can join.
      at = now;
    } else {
      // The engine may start more (fewer are in progress than it ran at once, or their number is
      // still growing): wait until none has arrived for a window.
      at = Math.min(deadline, now + Math.max(this.windowMs, 2 * this.paceMs));
    }
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      Math.max(0, at - now),
    );
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.listing = true;
    this.mostAtLastList = this.mostOperations;
    try {
      // A single check gains nothing from a list, and a single read costs the server less.
      const proof = batch.size === 1 ? undefined : await this.list().catch(() => undefined);
      await Promise.all(
        [...batch].map(async ([id, waiters]) => {
          try {
            let live: LiveHandler | undefined;
            if (proof !== undefined && (proof.shown.has(id) || proof.provesAbsent(id))) {
              this.stats.provenByList++;
              live = proof.shown.get(id);
            } else {
              this.stats.readAlone++;
              live = await this.account.read(id);
            }
            for (const w of waiters) w.resolve(live);
          } catch (error) {
            for (const w of waiters) w.reject(error);
          }
        }),
      );
    } finally {
      this.listing = false;
      this.schedule();
    }
  }

  private async list(): Promise<ListProof> {
    this.stats.lists++;
    const page = await this.api().list({
      results_per_page: MAX_RESULTS_PER_PAGE,
      order_by: "notification_handler_id",
      order_type: "DESC",
    });
    for (const h of page.data) this.account.observe(h.id);
    return proofOf(page);
  }
}
