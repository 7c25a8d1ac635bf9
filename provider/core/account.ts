/**
 * The account as this provider process sees it: a snapshot of every handler, read once per process
 * with ceil(N/1000) list requests and kept in step with the provider's own writes, and the claims,
 * the handlers that a resource of this process manages, which adoption and recovery never take.
 */
import { NotFoundError } from "../../sdk/client/core/errors";
import { readWholeAccount } from "../../sdk/client/domain/whole-account";
import type { HandlersApi } from "./handlers-api";
import { type LiveHandler, toLive } from "./inputs";

/** The snapshot and the claims (see the module comment). */
export class Account {
  private snapshot: Promise<Map<number, LiveHandler>> | undefined;
  private readonly claims = new Set<number>();
  private highest = 0;

  constructor(private readonly api: () => HandlersApi) {}

  /** Every handler of the account, read once per process (ceil(N/1000) list requests). */
  all(): Promise<Map<number, LiveHandler>> {
    if (this.snapshot === undefined) {
      const loading = this.load();
      this.snapshot = loading;
      // A failed read is not cached: the next call tries again.
      loading.catch(() => {
        if (this.snapshot === loading) this.snapshot = undefined;
      });
    }
    return this.snapshot;
  }

  /** Whether the snapshot was read (or is being read) in this process. */
  get loaded(): boolean {
    return this.snapshot !== undefined;
  }

  private async load(): Promise<Map<number, LiveHandler>> {
    const all = new Map<number, LiveHandler>();
    for (const handler of (await readWholeAccount(this.api())).handlers) {
      this.observe(handler.id);
      all.set(handler.id, toLive(handler));
    }
    return all;
  }

  /** Keeps the snapshot in step with a handler the provider wrote or read. */
  async remember(live: LiveHandler): Promise<void> {
    this.observe(live.handlerId);
    if (this.snapshot !== undefined)
      (await this.snapshot.catch(() => new Map<number, LiveHandler>())).set(live.handlerId, live);
  }

  /** Keeps the snapshot in step with a handler the provider deleted. */
  async forget(id: number): Promise<void> {
    if (this.snapshot !== undefined)
      (await this.snapshot.catch(() => new Map<number, LiveHandler>())).delete(id);
  }

  /** One handler by id: from the snapshot, or read when the snapshot does not have it. */
  async byId(id: number): Promise<LiveHandler | undefined> {
    const known = (await this.all()).get(id);
    if (known !== undefined) return known;
    return this.read(id);
  }

  /** Reads one handler; undefined when the API says it does not exist. */
  async read(id: number): Promise<LiveHandler | undefined> {
    try {
      const live = toLive(await this.api().retrieve(id));
      this.observe(id);
      return live;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  /** Records that a handler with this id exists or existed (ids only grow: docs/api.md#ids). */
  observe(id: number): void {
    if (id > this.highest) this.highest = id;
  }

  /** The highest id this process has seen: every handler made from now on has a higher one. */
  get horizon(): number {
    return this.highest;
  }

  /** Marks a handler as managed by a resource of this process. */
  claim(id: number): void {
    this.claims.add(id);
  }

  /** Whether a resource of this process manages the handler. */
  isClaimed(id: number): boolean {
    return this.claims.has(id);
  }
}
