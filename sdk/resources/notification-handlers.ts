/**
 * `client.notificationHandlers`: list, retrieve, create, update, delete, and the types they take and
 * return. Parameter types derive from the catalog; answers are read tolerantly and normalized across
 * the reference server and every deployed variant (docs/api.md#client-reading).
 */

import { z } from "zod";
import { fieldsOf, type FieldOf, type HandlerType } from "../catalog";
import type { APIResponse, NotificationHandlersClient, RequestOptions } from "../client";
import { UnexpectedResponseError } from "../errors";
import { parseJSONKeepingBigIntegers } from "../json";
import { type FormBody, encodeForm } from "../multipart";
import { Page, PagePromise, type PageLinks, type PageMeta } from "../pagination";

// ---------------------------------------------------------------------------------------------
// Reading answers

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An id from a number or a numeric string (an update's answer may: docs/api.md#deployed-extra-fields). */
function toId(value: unknown): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) && n > 0 ? n : null;
  }
  return null;
}

function toInt(value: unknown): number | null {
  if (typeof value === "number") return Number.isInteger(value) ? value : null;
  if (typeof value === "string" && /^\s*-?\d+\s*$/.test(value)) return Number(value);
  return null;
}

function settingString(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean")
    return String(value);
  if (value === null || value === undefined) return "";
  return JSON.stringify(value);
}

/**
 * `settings` as a map of strings: accepts an object, a JSON-encoded string (2025 answers,
 * docs/api.md#deployed-settings-string) or PHP's `[]` for an empty map; numbers become their digits
 * (deployed instances store `whatsapp` as an integer). Keys are kept as returned, extra ones included
 * (`email_is_confirmed`, `activation_code`, the `""` key of a damaged handler); use `typeSettings()`
 * for just the catalog fields.
 */
function toSettings(value: unknown): Record<string, string> {
  let parsed = value;
  if (typeof parsed === "string") {
    try {
      parsed = parseJSONKeepingBigIntegers(parsed);
    } catch {
      return {};
    }
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  // A plain loop: this runs for every handler of a list page, and entries/fromEntries build two
  // arrays per key. Object.keys of an array (PHP's `[]`, or a list) gives "0", "1", ...
  const source = parsed as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const key of Object.keys(source)) {
    const text = settingString(source[key]);
    // A "__proto__" key from JSON is an own key: plain assignment would set the prototype instead.
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value: text, enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = text;
    }
  }
  return out;
}

/** `is_enabled` as a boolean up to 2025, 0/1/2 in 2026 (2 = enabled, email address not yet confirmed). */
function toEnabled(value: unknown): { is_enabled: boolean; is_pending: boolean } {
  if (typeof value === "boolean") return { is_enabled: value, is_pending: false };
  let n = Number.NaN;
  if (typeof value === "number") n = value;
  else if (typeof value === "string") {
    const s = value.trim().toLowerCase();
    n = s === "true" ? 1 : s === "false" || s === "" ? 0 : Number(s);
  }
  if (n === 2) return { is_enabled: true, is_pending: true };
  return { is_enabled: Number.isFinite(n) && n > 0, is_pending: false };
}

/**
 * One handler as returned, normalized (see `NotificationHandler`), or null when it is not an object
 * or has no usable id. What the schema runs; the methods below call it directly, since a safeParse
 * per item costs more than the reading itself on a 1000-handler page.
 */
function readHandler(raw: unknown) {
  if (!isRecord(raw)) return null;
  const id = toId(raw.id);
  if (id === null) return null;
  const { is_enabled, is_pending } = toEnabled(raw.is_enabled);
  return {
    id,
    type: typeof raw.type === "string" && raw.type.trim() !== "" ? raw.type : null,
    name: settingString(raw.name),
    settings: toSettings(raw.settings),
    is_enabled,
    is_pending,
    last_datetime: typeof raw.last_datetime === "string" ? raw.last_datetime : null,
    // Present in every version; "" rather than a failure if a server ever leaves it out.
    datetime: typeof raw.datetime === "string" ? raw.datetime : "",
  };
}

/**
 * A notification handler as returned, normalized: `id` a number (from a number or numeric string),
 * `type` a string or null (2026 updates store null; a site may add types not in the catalog),
 * `settings` strings only, `is_enabled` boolean plus `is_pending` for 2026's `2`, `datetime` always a
 * string. Extra fields such as `user_id` are dropped. Only a non-object or a missing or unusable `id`
 * fails. (`z.unknown()` rather than `z.record()`: the transform reads every field itself, and a record
 * schema checking each key first cost more than the whole transform on a 1000-handler page.)
 */
export const NotificationHandler = z.unknown().transform((raw, ctx) => {
  const handler = readHandler(raw);
  if (handler === null) {
    if (isRecord(raw))
      ctx.addIssue({ code: "custom", message: "id is not a positive integer", path: ["id"] });
    else ctx.addIssue({ code: "custom", message: "expected an object" });
    return z.NEVER;
  }
  return handler;
});
/** A notification handler as returned, normalized. */
export type NotificationHandler = z.infer<typeof NotificationHandler>;

/** The settings of `handler` that belong to its type in the catalog (empty for an unknown or null type). */
export function typeSettings(
  handler: Pick<NotificationHandler, "type" | "settings">,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { field } of fieldsOf(handler.type ?? "")) {
    const value = handler.settings[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

/** What create answers: the new id, and the handler when sent whole (docs/api.md#deployed-create-answer). */
export interface NotificationHandlerCreateResponse {
  id: number;
  /**
   * The handler as the create answer showed it, or null when the answer held only the id (2023 and
   * the reference server). Its settings may carry `activation_code`, which reads never show.
   */
  handler: NotificationHandler | null;
}

/**
 * What update answers. Do not trust it: 2025 instances save nothing and answer `id: null`; 2026
 * instances damage the handler (`type: null`, `settings: {"": ""}`) and answer so
 * (docs/api.md#deployed-update-answer). Read the handler back and compare.
 */
export interface NotificationHandlerUpdateResponse {
  /** The id in the answer, or null when it had none or an unusable one. */
  id: number | null;
  /** The answer's `data` as received. */
  raw: unknown;
}

// ---------------------------------------------------------------------------------------------
// Parameters, derived from the catalog

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type AnyField = FieldOf<HandlerType>;
/** The fields of type `T`, all required. */
type FieldsOf<T extends HandlerType> = { [K in FieldOf<T>]: string };
/** Fields of every other type: forbidden, so they do not compile. */
type NoFieldsOtherThan<T extends HandlerType> = { [K in Exclude<AnyField, FieldOf<T>>]?: never };

/** Create parameters for one type `T`: name, type, optional is_enabled, and every field of `T`. */
export type NotificationHandlerCreateParamsOf<T extends HandlerType> = Simplify<
  {
    type: T;
    name: string;
    /** Default true on the reference server; sent as 1/0. */
    is_enabled?: boolean | undefined;
  } & FieldsOf<T> &
    NoFieldsOtherThan<T>
>;

/** Create parameters: a union discriminated by `type`; a field of another type does not compile. */
export type NotificationHandlerCreateParams = {
  [T in HandlerType]: NotificationHandlerCreateParamsOf<T>;
}[HandlerType];

/** Update parameters that set `type` to `T` (switching or restating it): every field of `T` is required. */
export type NotificationHandlerUpdateParamsOf<T extends HandlerType> = Simplify<
  {
    type: T;
    name?: string | undefined;
    is_enabled?: boolean | undefined;
  } & FieldsOf<T> &
    NoFieldsOtherThan<T>
>;

/**
 * Update parameters without `type`: name, is_enabled and any type-specific field, all optional. The
 * client cannot know the handler's current type, so a field of another type compiles here; the server
 * rejects it (`400` on the reference server).
 */
export type NotificationHandlerPartialUpdateParams = Simplify<
  {
    type?: undefined;
    name?: string | undefined;
    is_enabled?: boolean | undefined;
  } & { [K in AnyField]?: string | undefined }
>;

/**
 * Update parameters: every field optional; when `type` is given, the union discriminated by it,
 * requiring that type's fields (a type switch must send them all: docs/api.md#update-type-switch) and
 * forbidding others'.
 */
export type NotificationHandlerUpdateParams =
  | NotificationHandlerPartialUpdateParams
  | { [T in HandlerType]: NotificationHandlerUpdateParamsOf<T> }[HandlerType];

/** A datetime filter: `Y-m-d H:i:s` as the server expects, or a Date (sent in UTC). */
export type DatetimeParam = string | Date;

/** List parameters (docs/api.md#list-parameters), all optional. */
export interface NotificationHandlerListParams {
  /** Case-insensitive substring of the name (ignored by 2025 instances: check the names you get). */
  search?: string | undefined;
  /** Field searched; only `name`. */
  search_by?: "name" | undefined;
  /** Only enabled (true) or disabled (false) handlers; sent as 1/0. */
  is_enabled?: boolean | undefined;
  type?: HandlerType | undefined;
  /** Field `datetime_start` and `datetime_end` apply to. Default `datetime`. */
  datetime_field?: "datetime" | "last_datetime" | undefined;
  /** Inclusive lower bound. */
  datetime_start?: DatetimeParam | undefined;
  /** Inclusive upper bound. */
  datetime_end?: DatetimeParam | undefined;
  /** Default `notification_handler_id`. */
  order_by?: "notification_handler_id" | "datetime" | "last_datetime" | "name" | undefined;
  /** Default `DESC`. */
  order_type?: "ASC" | "DESC" | undefined;
  /** Page to start at. Default 1. */
  page?: number | undefined;
  /** Default 25. */
  results_per_page?: 10 | 25 | 50 | 100 | 250 | 500 | 1000 | undefined;
}

/** A page of handlers, async-iterable over every handler of every page. */
export type NotificationHandlersPage = Page<NotificationHandler>;

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** Formats a Date as the API's `Y-m-d H:i:s`, in UTC. */
export function formatDatetime(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

function queryOf(params: NotificationHandlerListParams, page: number): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(params) as [string, unknown][]) {
    if (value === undefined || value === null || name === "page") continue;
    if (typeof value === "boolean") query[name] = value ? "1" : "0";
    else if (value instanceof Date) query[name] = formatDatetime(value);
    else query[name] = settingString(value);
  }
  query.page = String(page);
  return query;
}

function formOf(params: Record<string, unknown>): FormBody {
  const fields: [string, string][] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    // Deployed instances read `true` as 0 (docs/api.md#deployed-is-enabled-form): always send 1/0.
    if (name === "is_enabled")
      fields.push([name, value === true || value === 1 || value === "1" ? "1" : "0"]);
    else fields.push([name, settingString(value)]);
  }
  return encodeForm(fields);
}

function idPath(id: number): string {
  return `api/notification-handlers/${encodeURIComponent(String(id))}`;
}

function dataOf(res: APIResponse, what: string): unknown {
  if (!isRecord(res.body) || !("data" in res.body)) {
    throw new UnexpectedResponseError(`the answer has no "data" (${what})`, res.status, res, res.body);
  }
  return res.body.data;
}

function metaOf(raw: unknown, page: number): PageMeta {
  const meta = isRecord(raw) ? raw : {};
  const normalized: PageMeta = {
    page,
    results_per_page: toInt(meta.results_per_page),
    // Deployed instances call it `total_results` (docs/api.md#deployed-list-meta).
    total: toInt(meta.total) ?? toInt(meta.total_results),
    total_pages: toInt(meta.total_pages),
  };
  if (meta.total !== undefined) normalized.dialect = "reference";
  else if (meta.total_results !== undefined) normalized.dialect = "deployed";
  return normalized;
}

function linksOf(raw: unknown): PageLinks {
  const links = isRecord(raw) ? raw : {};
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  return {
    first: str(links.first),
    last: str(links.last),
    next: str(links.next),
    prev: str(links.prev),
    self: str(links.self),
  };
}

// ---------------------------------------------------------------------------------------------
// The resource

/** `client.notificationHandlers`. */
export class NotificationHandlers {
  constructor(private readonly client: NotificationHandlersClient) {
    Object.defineProperty(this, "client", { enumerable: false });
  }

  /**
   * Lists handlers. Await it for the first page, or `for await` over it for every handler of every
   * page. Later pages repeat these parameters with the next page number.
   */
  list(
    params: NotificationHandlerListParams = {},
    options?: RequestOptions,
  ): PagePromise<NotificationHandler> {
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
      const data: NotificationHandler[] = [];
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
  async retrieve(id: number, options?: RequestOptions): Promise<NotificationHandler> {
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
