/**
 * How the service's answers look. Routes decide what happened; a presenter decides the status and
 * body that say so. The reference presenter answers as docs/api.md#endpoints says; an emulation of a deployed
 * instance swaps in its own.
 */
import { type ErrorRenderer, renderError } from "./errors";
import type { HandlerRecord } from "./repository";

/** A status, a body (none for 204) and any headers of its own (an emulation's content type). */
export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The handler as the API returns it. */
interface HandlerView {
  id: number;
  type: string | null;
  name: string;
  settings: Record<string, string>;
  is_enabled: boolean;
  last_datetime: string | null;
  datetime: string;
}

/** Everything a list answer is made of. */
export interface ListPage {
  readonly records: readonly HandlerRecord[];
  readonly page: number;
  readonly resultsPerPage: number;
  readonly total: number;
  readonly totalPages: number;
  /** `{base_url}/api/notification-handlers`, without a query. */
  readonly collectionUrl: string;
  /** The request's parameters except `page`, to repeat in links. */
  readonly linkParams: ReadonlyArray<readonly [string, string]>;
  /**
   * Whether the request sent `page` (deployed instances then echo it as a string:
   * docs/api.md#deployed-list-meta).
   */
  readonly pageGiven?: boolean;
}

/** The shapes of every answer the notification-handler routes give. */
export interface Presenter {
  read(record: HandlerRecord): Answer;
  created(record: HandlerRecord): Answer;
  updated(record: HandlerRecord): Answer;
  deleted(record: HandlerRecord): Answer;
  list(page: ListPage): Answer;
  error: ErrorRenderer;
}

/** The reference handler shape. */
function handlerView(record: HandlerRecord): HandlerView {
  return {
    id: record.id,
    type: record.type,
    name: record.name,
    settings: { ...record.settings },
    is_enabled: record.isEnabled,
    last_datetime: record.lastDatetime,
    datetime: record.datetime,
  };
}

/** The URL of one page: the request's parameters, then `page=N`. */
function pageUrl(page: ListPage, n: number): string {
  const query = new URLSearchParams();
  for (const [name, value] of page.linkParams) query.append(name, value);
  query.append("page", String(n));
  return `${page.collectionUrl}?${query.toString()}`;
}

/** A list answer's `links`, each page's URL as `urlOf` writes it; `next` and `prev` are null at the ends. */
export function listLinks(
  page: ListPage,
  urlOf = pageUrl,
): {
  first: string;
  last: string;
  next: string | null;
  prev: string | null;
  self: string;
} {
  return {
    first: urlOf(page, 1),
    last: urlOf(page, page.totalPages),
    next: page.page < page.totalPages ? urlOf(page, page.page + 1) : null,
    // From past the end, "previous" is the last page that exists, not page - 1.
    prev: page.page > 1 ? urlOf(page, Math.min(page.page - 1, page.totalPages)) : null,
    self: urlOf(page, page.page),
  };
}

/** The reference answers (docs/api.md#endpoints). */
export const referencePresenter: Presenter = {
  read: (record) => ({ status: 200, body: { data: handlerView(record) } }),
  created: (record) => ({ status: 201, body: { data: { id: record.id } } }),
  updated: (record) => ({ status: 200, body: { data: { id: record.id } } }),
  deleted: () => ({ status: 204 }),
  list: (page) => ({
    status: 200,
    body: {
      data: page.records.map(handlerView),
      meta: {
        page: page.page,
        results_per_page: page.resultsPerPage,
        total: page.total,
        total_pages: page.totalPages,
      },
      links: listLinks(page),
    },
  }),
  error: renderError,
};
