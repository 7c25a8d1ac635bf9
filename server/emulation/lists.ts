/**
 * Lists as deployed instances answer them (docs/api.md#deployed, "Lists"): parameters
 * read leniently, `meta.total_results`, a string `meta.page`, `?&page=N` links.
 */
import { type ListPage, listLinks } from "../presenter";
import { type HandlerListQuery, LIST_PARAMETERS, parseListQuery } from "../schemas/notification-handlers";
import type { EmulatedVersion } from "./versions";

/** The page size of an invalid `results_per_page` (docs/api.md#deployed-list-lenient-parameters). */
const FALLBACK_RESULTS_PER_PAGE = 100;

/** The parameters 2025 still reads: it paginates, but filters, searches and orders nothing. */
const READ_BY_2025: ReadonlySet<string> = new Set(["page", "results_per_page"]);
/** The parameters 2026 leaves out of its links, though it applies them. */
const DATETIME_PARAMETERS: ReadonlySet<string> = new Set([
  "datetime_field",
  "datetime_start",
  "datetime_end",
]);

/**
 * The list query `version` acts on: invalid parameters ignored, an invalid `results_per_page` 100
 * (docs/api.md#deployed-list-lenient-parameters), and in 2025 no filter, search or order at all
 * (docs/api.md#deployed-2025-list-ignores-filters). A parameter counts as valid when the reference
 * parser accepts it on its own; a repeated one counts by its last value, as in PHP's `$_GET`; unknown
 * names are ignored (docs/api.md#emulation-lists).
 */
export function deployedListQuery(
  version: EmulatedVersion,
  query: Readonly<Record<string, readonly string[]>>,
): HandlerListQuery {
  const kept: Record<string, string[]> = {};
  for (const name of LIST_PARAMETERS) {
    const raw = query[name]?.at(-1);
    if (raw === undefined || (version === "2025" && !READ_BY_2025.has(name))) continue;
    if (parseListQuery({ [name]: [raw] }).ok) kept[name] = [raw];
    else if (name === "results_per_page") kept[name] = [String(FALLBACK_RESULTS_PER_PAGE)];
  }
  const parsed = parseListQuery(kept);
  if (!parsed.ok) throw new Error("list parameters valid one by one were refused together");
  // docs/api.md#deployed-2026-links-drop-datetime
  if (version !== "2026") return parsed.value;
  const linkParams = parsed.value.linkParams.filter(([name]) => !DATETIME_PARAMETERS.has(name));
  return { ...parsed.value, linkParams };
}

/** A page URL as deployed instances write it: `...?&page=1` (docs/api.md#deployed-list-links). */
function deployedPageUrl(page: ListPage, n: number): string {
  return `${page.collectionUrl}?${new URLSearchParams(page.linkParams.map(([name, value]): [string, string] => [name, value])).toString()}&page=${n}`;
}

/** The `meta` and `links` of a deployed list answer. */
export function deployedListEnvelope(page: ListPage): { meta: unknown; links: unknown } {
  return {
    meta: {
      // A string when `page` was sent (docs/api.md#deployed-list-meta).
      page: page.pageGiven === true ? String(page.page) : page.page,
      results_per_page: page.resultsPerPage,
      // Instead of `total` (docs/api.md#deployed-list-meta).
      total_results: page.total,
      total_pages: page.totalPages,
    },
    links: listLinks(page, deployedPageUrl),
  };
}
