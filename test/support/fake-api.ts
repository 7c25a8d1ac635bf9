/**
 * A fake of the API the provider uses (`client.notificationHandlers`), in memory, for unit tests of
 * the provider's modules without a server or the engine. It stores handlers with growing ids, lists
 * them in the order asked (or, like 2025 instances, in its own order), counts calls, and fails creates
 * and lists as a test scripts it: what the real client would throw after its own retries.
 */
import type { HandlersApi } from "../../provider/core/handlers-api";
import { ProviderContext } from "../../provider/core/context";
import { readSettings } from "../../provider/core/config";
import { CreateOutcomeUnknownError, InternalServerError, NotFoundError } from "../../sdk/client/core/errors";
import { Page, PagePromise } from "../../sdk/client/core/pagination";
import type {
  NotificationHandlerCreateResponse,
  NotificationHandlerUpdateResponse,
} from "../../sdk/client/domain/resources/handler-params";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";

/** How a create fails: 500 before storing anything, 500 after storing, or a reset after storing. */
export type CreateFault = "500-before" | "500-after" | "reset-after";

/** Calls the fake answered (or failed), by method. */
export interface Calls {
  list: number;
  retrieve: number;
  create: number;
  update: number;
  delete: number;
}

const request = (method: string, path: string): { method: string; path: string } => ({ method, path });

/** The in-memory API (see the module comment). */
export class FakeApi implements HandlersApi {
  readonly store = new Map<number, NotificationHandlerRecord>();
  readonly calls: Calls = { list: 0, retrieve: 0, create: 0, update: 0, delete: 0 };
  /** Faults of the next creates, in order; `undefined` entries succeed. */
  createFaults: (CreateFault | undefined)[] = [];
  /** Lists to fail with a 500 (after the client's retries). */
  failingLists = 0;
  /** Lists in ascending id order whatever was asked, as 2025 instances do. */
  ignoreOrder = false;
  /** Called when a create request arrives, before it is answered (to interleave tests' steps). */
  onCreate: (() => Promise<void>) | undefined;
  private nextId = 1;

  /** Stores a handler as the web UI would (no call is counted); returns it. */
  seed(
    data: Partial<NotificationHandlerRecord> & Pick<NotificationHandlerRecord, "type" | "name">,
  ): NotificationHandlerRecord {
    const handler: NotificationHandlerRecord = {
      id: this.nextId++,
      settings: {},
      is_enabled: true,
      is_pending: false,
      last_datetime: null,
      datetime: "2026-01-01 00:00:00",
      ...data,
    };
    this.store.set(handler.id, handler);
    return handler;
  }

  list(params: Parameters<HandlersApi["list"]>[0] = {}): PagePromise<NotificationHandlerRecord> {
    const perPage = params.results_per_page ?? 25;
    const descending = !this.ignoreOrder && params.order_type === "DESC";
    const fetchPage = (page: number): Promise<Page<NotificationHandlerRecord>> => {
      this.calls.list++;
      if (this.failingLists > 0) {
        this.failingLists--;
        return Promise.reject(
          new InternalServerError(500, {}, undefined, request("GET", "/api/notification-handlers")),
        );
      }
      const all = [...this.store.values()].sort((a, b) => (descending ? b.id - a.id : a.id - b.id));
      const data = all.slice((page - 1) * perPage, page * perPage).map((h) => ({ ...h }));
      const totalPages = Math.max(1, Math.ceil(all.length / perPage));
      return Promise.resolve(
        new Page({
          data,
          meta: { page, results_per_page: perPage, total: all.length, total_pages: totalPages },
          links: { first: null, last: null, next: null, prev: null, self: null },
          fetchPage,
        }),
      );
    };
    return new PagePromise(() => fetchPage(params.page ?? 1));
  }

  retrieve(id: number): Promise<NotificationHandlerRecord> {
    this.calls.retrieve++;
    const handler = this.store.get(id);
    if (handler === undefined)
      return Promise.reject(new NotFoundError(404, {}, undefined, request("GET", `/${id}`)));
    return Promise.resolve({ ...handler });
  }

  async create(params: Parameters<HandlersApi["create"]>[0]): Promise<NotificationHandlerCreateResponse> {
    this.calls.create++;
    const fault = this.createFaults.shift();
    await this.onCreate?.();
    const info = request("POST", "/api/notification-handlers");
    if (fault === "500-before") throw new InternalServerError(500, {}, undefined, info);
    const { name, type, is_enabled, ...fields } = params as unknown as Record<string, string | boolean>;
    const made = this.seed({
      type: String(type),
      name: String(name),
      is_enabled: is_enabled !== false,
      settings: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])),
    });
    if (fault === "500-after") throw new InternalServerError(503, {}, undefined, info);
    if (fault === "reset-after")
      throw new CreateOutcomeUnknownError(info, { cause: new Error("socket hang up") });
    return { id: made.id, handler: null };
  }

  update(
    id: number,
    params: Parameters<HandlersApi["update"]>[1],
  ): Promise<NotificationHandlerUpdateResponse> {
    this.calls.update++;
    const handler = this.store.get(id);
    if (handler === undefined)
      return Promise.reject(new NotFoundError(404, {}, undefined, request("POST", `/${id}`)));
    const { name, type, is_enabled, ...fields } = params as unknown as Record<string, string | boolean>;
    this.store.set(id, {
      ...handler,
      ...(name === undefined ? {} : { name: String(name) }),
      ...(type === undefined ? {} : { type: String(type) }),
      ...(is_enabled === undefined ? {} : { is_enabled: is_enabled === true }),
      settings: {
        ...handler.settings,
        ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])),
      },
    });
    return Promise.resolve({ id, raw: { id } });
  }

  delete(id: number): Promise<void> {
    this.calls.delete++;
    if (!this.store.delete(id))
      return Promise.reject(new NotFoundError(404, {}, undefined, request("DELETE", `/${id}`)));
    return Promise.resolve();
  }
}

/** The provider's configuration in {@link fakeContext}: the connection its `api` answers. */
export const DEFAULT_CONNECTION = { baseUrl: "http://127.0.0.1:1", apiKey: "test-key" } as const;

/** A further account of {@link fakeContext}: the connection that reaches it, and its fake API. */
export interface FakeAccount {
  baseUrl: string;
  apiKey: string;
  api: FakeApi;
}

/**
 * A provider context around a fake API (the provider's configuration) and further accounts, each
 * reached by its base URL and key; `built` lists the connection (base URL) of each client built.
 * Checks of writes are batched with a window of 1 ms unless `batchWindowMs` says otherwise.
 */
export function fakeContext(
  api: FakeApi,
  accounts: FakeAccount[] = [],
  batchWindowMs = 1,
): { ctx: ProviderContext; notes: string[]; built: string[] } {
  const notes: string[] = [];
  const built: string[] = [];
  const all: FakeAccount[] = [{ ...DEFAULT_CONNECTION, api }, ...accounts];
  const ctx = new ProviderContext({
    api: (connection) => {
      built.push(connection.baseUrl);
      const found = all.find((a) => a.baseUrl === connection.baseUrl && a.apiKey === connection.apiKey);
      if (found === undefined) throw new Error(`no fake account at ${connection.baseUrl} with that key`);
      return found.api;
    },
    note: (m) => notes.push(m),
    batchWindowMs,
  });
  ctx.settings = readSettings(
    (key) =>
      key.endsWith("baseUrl")
        ? DEFAULT_CONNECTION.baseUrl
        : key.endsWith("apiKey")
          ? DEFAULT_CONNECTION.apiKey
          : undefined,
    {}, // the process's environment plays no part
  );
  return { ctx, notes, built };
}
