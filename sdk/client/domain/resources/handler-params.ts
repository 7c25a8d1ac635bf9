/**
 * The parameter and answer types of `client.notificationHandlers`: create and update parameters
 * derived from the catalog (a field of another type does not compile), list parameters, and what
 * create, update and list answer.
 */

import type { FieldOf, HandlerType } from "../catalog";
import type { Page } from "../../core/pagination";
import type { NotificationHandlerRecord } from "./handler-parsing";
import type { ListOrderBy, ListOrderType, ResultsPerPage } from "../list-rules";

/** What create answers: the new id, and the handler when sent whole (docs/api.md#deployed-create-answer). */
export interface NotificationHandlerCreateResponse {
  id: number;
  /**
   * The handler as the create answer showed it, or null when the answer held only the id (2023 and
   * the reference server). Its settings may carry `activation_code`, which reads never show.
   */
  handler: NotificationHandlerRecord | null;
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
  order_by?: ListOrderBy | undefined;
  /** Default `DESC`. */
  order_type?: ListOrderType | undefined;
  /** Page to start at. Default 1. */
  page?: number | undefined;
  /** Default 25. */
  results_per_page?: ResultsPerPage | undefined;
}

/** A page of handlers, async-iterable over every handler of every page. */
export type NotificationHandlersPage = Page<NotificationHandlerRecord>;
