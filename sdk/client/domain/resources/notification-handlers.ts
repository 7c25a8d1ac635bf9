/**
 * `client.notificationHandlers`: list, retrieve, create, update, delete. The requests are described
 * here and sent through the client; their parameters are typed in `handler-params.ts`, encoded in
 * `handler-encoding.ts`, and the answers read in `handler-parsing.ts`.
 */

import type { APIResponse, RequestOptions, Requester } from "../../core/api-request";
import { UnexpectedResponseError } from "../../core/errors";
import { Page, PagePromise } from "../../core/pagination";
import { formOf, queryOf } from "./handler-encoding";
import type {
  NotificationHandlerCreateParams,
  NotificationHandlerCreateResponse,
  NotificationHandlerListParams,
  NotificationHandlerUpdateParams,
  NotificationHandlerUpdateResponse,
  NotificationHandlersPage,
} from "./handler-params";
import { isRecord } from "../../core/json";
import { type NotificationHandlerRecord, linksOf, metaOf, readHandler, toId } from "./handler-parsing";

function idPath(id: number): string {
  return `api/notification-handlers/${encodeURIComponent(String(id))}`;
}

function dataOf(res: APIResponse, what: string): unknown {
  if (!isRecord(res.body) || !("data" in res.body)) {
    throw new UnexpectedResponseError(`the answer has no "data" (${what})`, res.status, res, res.body);
  }
  return res.body.data;
}

/** `client.notificationHandlers`. */
export class NotificationHandlers {
  constructor(private readonly client: Requester) {
    Object.defineProperty(this, "client", { enumerable: false });
  }

  /**
   * Lists handlers. Await it for the first page, or `for await` over it for every handler of every
   * page. Later pages repeat these parameters with the next page number.
   */
  list(
    params: NotificationHandlerListParams = {},
    options?: RequestOptions,
  ): PagePromise<NotificationHandlerRecord> {
    const fetchPage = async (
      page: number,
      seenBefore: ReadonlySet<number>,
    ): Promise<NotificationHandlersPage> => {
      const res = await this.client.request({
        method: "GET",
        path: "api/notification-handlers/",
        collection: true,
        query: queryOf(params, page),
        retry: "idempotent",
        options,
      });
      const body = isRecord(res.body) ? res.body : {};
      if (!Array.isArray(body.data)) {
        throw new UnexpectedResponseError('the list answer has no "data" array', res.status, res, res.body);
      }
      const data: NotificationHandlerRecord[] = [];
      let skipped = 0;
      for (const item of body.data as unknown[]) {
        const handler = readHandler(item);
        if (handler !== null) data.push(handler);
        else skipped++;
      }
      return new Page({
        data,
        meta: metaOf(body.meta, page),
        links: linksOf(body.links),
        skipped,
        fetchPage,
        seenBefore,
      });
    };
    const first = params.page ?? 1;
    return new PagePromise(() => fetchPage(first, new Set()));
  }

  /** Reads one handler; a missing one (or another user's) is a `NotFoundError`. */
  async retrieve(id: number, options?: RequestOptions): Promise<NotificationHandlerRecord> {
    const res = await this.client.request({ method: "GET", path: idPath(id), retry: "idempotent", options });
    const data = dataOf(res, "read");
    // The answer is about `id`: if the server left it out, say so rather than reject the handler.
    const withId = isRecord(data) && toId(data.id) === null ? { ...data, id } : data;
    const handler = readHandler(withId);
    if (handler === null) {
      throw new UnexpectedResponseError(
        "the answer is not a notification handler",
        res.status,
        res,
        res.body,
      );
    }
    return handler;
  }

  /**
   * Creates a handler. Never retried once it may have reached the server: a connection failure after
   * sending throws `CreateOutcomeUnknownError` (the handler may exist).
   */
  async create(
    params: NotificationHandlerCreateParams,
    options?: RequestOptions,
  ): Promise<NotificationHandlerCreateResponse> {
    const res = await this.client.request({
      method: "POST",
      path: "api/notification-handlers",
      collection: true,
      body: formOf(params),
      retry: "create",
      options,
    });
    const data = dataOf(res, "create");
    const id = isRecord(data) ? toId(data.id) : null;
    if (id === null) {
      throw new UnexpectedResponseError(
        "the create answer carries no usable id; the handler was probably created (list by name to find it)",
        res.status,
        res,
        res.body,
      );
    }
    // 2023 and the reference server answer only the id; 2025 on answer the whole handler.
    const whole = isRecord(data) && ("name" in data || "type" in data || "settings" in data);
    return { id, handler: whole ? readHandler(data) : null };
  }

  /**
   * Updates a handler: only the fields sent change. Retried like a read: sending the same values
   * twice leaves the same state. The answer is not to be trusted (see `NotificationHandlerUpdateResponse`).
   */
  async update(
    id: number,
    params: NotificationHandlerUpdateParams,
    options?: RequestOptions,
  ): Promise<NotificationHandlerUpdateResponse> {
    const res = await this.client.request({
      method: "POST",
      path: idPath(id),
      body: formOf(params),
      retry: "idempotent",
      options,
    });
    const raw = isRecord(res.body) ? res.body.data : undefined;
    return { id: isRecord(raw) ? toId(raw.id) : null, raw };
  }

  /**
   * Deletes a handler; a missing one is a `NotFoundError`, except when an earlier attempt of this same
   * call may have deleted it (then the 404 of the retry means done). Accepts `204` and the deployed
   * `200` with an empty body.
   */
  async delete(id: number, options?: RequestOptions): Promise<void> {
    await this.client.request({
      method: "DELETE",
      path: idPath(id),
      retry: "idempotent",
      notFoundAfterRetryIsSuccess: true,
      options,
    });
  }
}
