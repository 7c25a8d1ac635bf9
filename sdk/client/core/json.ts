/** JSON reading shared by the transport, the errors and the resource schemas. */

/** Whether `value` is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether `value` holds a number that is an integer beyond 2^53, the only kind the keeping parse
 * reads differently. An integer token that large in the text always parses to such a number.
 */
function hasUnsafeInteger(value: unknown): boolean {
  if (typeof value === "number") return !Number.isSafeInteger(value) && Number.isInteger(value);
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (hasUnsafeInteger(item)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  // for...in over JSON.parse's output sees only own keys (its objects inherit nothing enumerable),
  // and walks a 1000-handler page several times faster than Object.keys or Object.values.
  for (const key in record) if (hasUnsafeInteger(record[key])) return true;
  return false;
}

/**
 * Parses JSON keeping integers too large for a double as their digits: deployed instances store
 * `whatsapp` as an integer (docs/api.md#deployed-whatsapp-integer), which a plain parse would round.
 * The plain parse runs first; only when its result holds such an integer is the text parsed again
 * with a reviver.
 * (Scanning the text for a run of 16 digits first took half as long as the parse itself on a list
 * page, whose dates, phones and ids are full of digits; walking the parsed result takes a tenth.)
 */
export function parseJSONKeepingBigIntegers(text: string): unknown {
  const plain = JSON.parse(text) as unknown;
  if (!hasUnsafeInteger(plain)) return plain;
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? context.source
      : value,
  ) as unknown;
}
