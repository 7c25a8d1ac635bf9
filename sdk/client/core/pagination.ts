/**
 * The list page: `data`, `meta`, `links`, `hasNextPage()`, `getNextPage()`, and async iteration over
 * every item of this page and all later ones.
 *
 * The next page is computed from the request (its parameters and page number + 1), never by following
 * `links.next`: deployed instances write links like `?&page=1`, and the 2026 ones drop the datetime
 * filters from them (docs/api.md#deployed-list-links), so following them would silently change the
 * query (docs/api.md#client-pagination). Iteration stops at an empty page, at `total_pages`, or at a
 * page that brings no id not seen before (a server that ignores `page`, as 2025 instances ignore other
 * list parameters, would otherwise loop forever).
 */

import { NotificationHandlersError } from "./errors";

/**
 * `meta` of a list answer, normalized: `total` also from `total_results`, numbers from numeric strings
 * (docs/api.md#deployed-list-meta).
 */
export interface PageMeta {
  /** The page number this page was requested as (the server's `meta.page` may be a string or absent). */
  page: number;
  results_per_page: number | null;
  /** Total matches (`meta.total`, or `meta.total_results` on deployed instances); null when not given. */
  total: number | null;
  total_pages: number | null;
  /**
   * Which list shape the server answered in: `"reference"` when `meta` carried `total` (the reference
   * server, docs/api.md#list-response), `"deployed"` when it carried `total_results` instead
   * (deployed instances, docs/api.md#deployed-list-meta); absent when it carried neither.
   */
  dialect?: "reference" | "deployed";
}

/** `links` of a list answer, as the server wrote them; informational only (see the module comment). */
export interface PageLinks {
  first: string | null;
  last: string | null;
  next: string | null;
  prev: string | null;
  self: string | null;
}

/** Fetches page `page` of the same query; `seenBefore` carries the ids of the pages before it. */
type PageFetcher<Item extends { id: number }> = (
  page: number,
  seenBefore: ReadonlySet<number>,
) => Promise<Page<Item>>;

/** One page of a list, async-iterable over every item from here to the last page. */
export class Page<Item extends { id: number }> implements AsyncIterable<Item> {
  /** The items of this page, as the server returned them (normalized). */
  readonly data: Item[];
  readonly meta: PageMeta;
  readonly links: PageLinks;
  /** Items in the answer that could not be read (no usable id) and were left out of `data`. */
  readonly skipped: number;

  private readonly fetchPage: PageFetcher<Item>;
  private readonly seenBefore: ReadonlySet<number>;
  /** The items whose id is new to the iteration, computed on first use (see `newItems()`). */
  private newItemsCache: Item[] | undefined;

  constructor(args: {
    data: Item[];
    meta: PageMeta;
    links: PageLinks;
    skipped?: number;
    fetchPage: PageFetcher<Item>;
    seenBefore?: ReadonlySet<number>;
  }) {
    this.data = args.data;
    this.meta = args.meta;
    this.links = args.links;
    this.skipped = args.skipped ?? 0;
    this.fetchPage = args.fetchPage;
    this.seenBefore = args.seenBefore ?? new Set();
    Object.defineProperty(this, "fetchPage", { enumerable: false });
    Object.defineProperty(this, "seenBefore", { enumerable: false });
    Object.defineProperty(this, "newItemsCache", { enumerable: false });
  }

  /**
   * This page's items whose id neither an earlier page nor an earlier item of this one had. Lazy:
   * a page that is only awaited never needs it, and a set over 1000 ids is not free.
   */
  private newItems(): Item[] {
    if (this.newItemsCache === undefined) {
      const seenHere = new Set<number>();
      this.newItemsCache = this.data.filter((item) => {
        if (this.seenBefore.has(item.id) || seenHere.has(item.id)) return false;
        seenHere.add(item.id);
        return true;
      });
    }
    return this.newItemsCache;
  }

  /** Whether a later page may hold more items. */
  hasNextPage(): boolean {
    if (this.data.length === 0 || this.newItems().length === 0) return false;
    const { page, total_pages, total, results_per_page } = this.meta;
    if (total_pages !== null) return page < total_pages;
    if (total !== null && results_per_page !== null) return page * results_per_page < total;
    // No totals at all: a full page suggests more.
    return results_per_page !== null && this.data.length >= results_per_page;
  }

  /** Fetches the next page of the same query; throws when there is none (check `hasNextPage()`). */
  async getNextPage(): Promise<Page<Item>> {
    if (!this.hasNextPage()) throw new NotificationHandlersError("No next page: check hasNextPage() first.");
    const seen = new Set(this.seenBefore);
    for (const item of this.data) seen.add(item.id);
    return this.fetchPage(this.meta.page + 1, seen);
  }

  /** This page and every later one. */
  async *iterPages(): AsyncGenerator<Page<Item>, void, undefined> {
    yield this;
    if (!this.hasNextPage()) return;
    let page = await this.getNextPage();
    yield page;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      yield page;
    }
  }

  /** Every item of this page and the later ones, each id once. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.iterPages()) yield* page.newItems();
  }
}

/**
 * What `list()` returns: await it for the first page, or iterate it directly with `for await` for
 * every item. The request starts when it is first awaited or iterated, so an unused result never
 * becomes an unhandled rejection.
 */
export class PagePromise<Item extends { id: number }>
  implements PromiseLike<Page<Item>>, AsyncIterable<Item>
{
  private promise: Promise<Page<Item>> | undefined;

  constructor(private readonly load: () => Promise<Page<Item>>) {}

  private start(): Promise<Page<Item>> {
    this.promise ??= this.load();
    return this.promise;
  }

  /** Resolves to the first page. */
  then<TResult1 = Page<Item>, TResult2 = never>(
    onfulfilled?: ((value: Page<Item>) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.start().then(onfulfilled, onrejected);
  }

  /** Catches a failure of the first page. */
  catch<TResult = never>(
    onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<Page<Item> | TResult> {
    return this.start().catch(onrejected);
  }

  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    const first = await this.start();
    yield* first;
  }
}
