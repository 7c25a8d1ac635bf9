/**
 * Time as the service sees it: an injectable clock and the API's `Y-m-d H:i:s` UTC format (written
 * by the SDK's `formatDatetime`, checked here).
 */
import { formatDatetime } from "#shared";

/** Milliseconds since the epoch; tests pass their own to control datetimes and the rate limit. */
export type Clock = () => number;

/** The real clock. */
export const systemClock: Clock = () => Date.now();

const DATETIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Whether `value` is a real calendar instant written as `Y-m-d H:i:s` (no 2024-02-30, no 24:00:00). */
export function isDatetime(value: string): boolean {
  const match = DATETIME.exec(value);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  // Overflowing parts roll over (Feb 30 -> Mar 1), so a round trip exposes them.
  return formatDatetime(date) === value;
}
