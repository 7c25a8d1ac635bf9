/**
 * Encoding requests as the API takes them: list parameters as query values, create and update
 * parameters as a form, datetimes as `Y-m-d H:i:s` in UTC.
 */

import { type FormBody, encodeForm } from "../../core/multipart";
import type { NotificationHandlerListParams } from "./handler-params";
import { settingString } from "./handler-parsing";

/** Formats a Date as the API's `Y-m-d H:i:s`, in UTC (years 0 to 9999). */
export function formatDatetime(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** List parameters as query values for `page`: booleans as 1/0, dates as `Y-m-d H:i:s` (UTC). */
export function queryOf(params: NotificationHandlerListParams, page: number): Record<string, string> {
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

/** Create or update parameters as a form body; `is_enabled` always as 1/0. */
export function formOf(params: Record<string, unknown>): FormBody {
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
