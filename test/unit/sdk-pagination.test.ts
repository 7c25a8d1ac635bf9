/**
 * Pages of a list: iterated item by item across pages, and stopping where a server's paging does not
 * (an empty page, a page with no new id, missing totals), each id once; a PagePromise asks for the
 * first page once however it is used.
 */
import { describe, expect, it } from "vitest";
import { Page, PagePromise, type PageMeta } from "../../sdk/client/core/pagination";

interface Item {
  id: number;
}

const links = { first: null, last: null, next: null, prev: null, self: null };

/** A fetcher over fixed pages (1-based); records the pages asked for. */
function pages(contents: number[][], meta: (page: number) => Partial<PageMeta> = () => ({})) {
  const asked: number[] = [];
  const fetchPage = (page: number, seenBefore: ReadonlySet<number>): Promise<Page<Item>> => {
    asked.push(page);
    return Promise.resolve(
      new Page<Item>({
        data: (contents[page - 1] ?? []).map((id) => ({ id })),
        meta: {
          page,
          results_per_page: 2,
          total: null,
          total_pages: contents.length,
          ...meta(page),
        },
        links,
        fetchPage,
        seenBefore,
      }),
    );
  };
  return { asked, first: () => fetchPage(1, new Set()) };
}

async function collect(iterable: AsyncIterable<Item>): Promise<number[]> {
  const ids: number[] = [];
  for await (const item of iterable) ids.push(item.id);
  return ids;
}

describe("Page", () => {
  it("iterates every item of every page, stopping at total_pages", async () => {
    const { asked, first } = pages([[5, 4], [3, 2], [1]]);
    expect(await collect(await first())).toEqual([5, 4, 3, 2, 1]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it("shows only data, meta, links and skipped, before and after iterating", async () => {
    const { first } = pages([[2, 1]]);
    const page = await first();
    const keys = ["data", "meta", "links", "skipped"];
    expect(Object.keys(page)).toEqual(keys);
    expect(await collect(page)).toEqual([2, 1]);
    expect(Object.keys(page)).toEqual(keys);
  });

  it("hasNextPage / getNextPage walk the pages", async () => {
    const { first } = pages([[2], [1]]);
    const p1 = await first();
    expect(p1.hasNextPage()).toBe(true);
    const p2 = await p1.getNextPage();
    expect(p2.meta.page).toBe(2);
    expect(p2.hasNextPage()).toBe(false);
    await expect(p2.getNextPage()).rejects.toThrow("No next page");
  });

  it("stops at an empty page even when total_pages says more", async () => {
    const { asked, first } = pages([[3, 2], []], () => ({ total_pages: 9 }));
    expect(await collect(await first())).toEqual([3, 2]);
    expect(asked).toEqual([1, 2]);
  });

  it("stops when a page brings no new id (a server that ignores page)", async () => {
    const { asked, first } = pages(
      [
        [2, 1],
        [2, 1],
        [2, 1],
      ],
      () => ({ total_pages: 3 }),
    );
    expect(await collect(await first())).toEqual([2, 1]);
    expect(asked).toEqual([1, 2]);
  });

  it("yields each id once when pages overlap", async () => {
    const { first } = pages([[4, 3], [3, 2], [1]]);
    expect(await collect(await first())).toEqual([4, 3, 2, 1]);
  });

  it("uses total and results_per_page when total_pages is missing, and a full page when both are", async () => {
    const byTotal = pages(
      [
        [4, 3],
        [2, 1],
      ],
      () => ({ total_pages: null, total: 4 }),
    );
    expect(await collect(await byTotal.first())).toEqual([4, 3, 2, 1]);
    expect(byTotal.asked).toEqual([1, 2]);
    const byFullPage = pages([[4, 3], [2]], () => ({ total_pages: null, total: null }));
    expect(await collect(await byFullPage.first())).toEqual([4, 3, 2]);
    expect(byFullPage.asked).toEqual([1, 2]);
  });

  it("getNextPage twice from one page gives the same page (no shared mutable state)", async () => {
    const { first } = pages([[2], [1]]);
    const p1 = await first();
    const a = await p1.getNextPage();
    const b = await p1.getNextPage();
    expect(a.hasNextPage()).toBe(b.hasNextPage());
    expect(await collect(a)).toEqual([1]);
    expect(await collect(b)).toEqual([1]);
  });
});

describe("PagePromise", () => {
  it("is awaitable for the first page and async-iterable over every item", async () => {
    const source = pages([[2], [1]]);
    const promise = new PagePromise(source.first);
    expect(source.asked).toEqual([]); // lazy: nothing requested until used
    expect((await promise).data).toEqual([{ id: 2 }]);
    expect(await collect(new PagePromise(pages([[2], [1]]).first))).toEqual([2, 1]);
  });

  it("requests the first page once however it is used", async () => {
    const source = pages([[1]]);
    const promise = new PagePromise(source.first);
    await promise;
    await promise;
    await collect(promise);
    expect(source.asked).toEqual([1]);
  });

  it("passes a failure to catch()", async () => {
    const promise = new PagePromise<Item>(() => Promise.reject(new Error("boom")));
    expect(await promise.catch((err: unknown) => (err as Error).message)).toBe("boom");
  });
});
