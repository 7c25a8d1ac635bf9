/**
 * The list's paging and order rules (docs/api.md#list-parameters): the page sizes it accepts, the
 * keys it orders by. Defined once here for the client's types, the server's checks, the whole-account
 * read (whole-account.ts), and the tests.
 */

/** The page sizes a list accepts. */
export const RESULTS_PER_PAGE = [10, 25, 50, 100, 250, 500, 1000] as const;
export type ResultsPerPage = (typeof RESULTS_PER_PAGE)[number];

/** The page size when none is asked for. */
export const DEFAULT_RESULTS_PER_PAGE: ResultsPerPage = 25;

/** The largest page: what a read of a whole account asks for. */
export const MAX_RESULTS_PER_PAGE: ResultsPerPage = 1000;

/** The keys a list may be ordered by. */
export const LIST_ORDER_BY = ["notification_handler_id", "datetime", "last_datetime", "name"] as const;
export type ListOrderBy = (typeof LIST_ORDER_BY)[number];

/** The directions of an order. */
export const LIST_ORDER_TYPES = ["ASC", "DESC"] as const;
export type ListOrderType = (typeof LIST_ORDER_TYPES)[number];
