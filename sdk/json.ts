/** JSON reading shared by the transport and the resource schemas. */

// A run of 16 digits is the shortest integer that may not fit a double exactly.
const LONG_DIGIT_RUN = /\d{16}/;

/**
 * Parses JSON keeping integers too large for a double as their digits: deployed instances store
 * `whatsapp` as an integer (CONTRACT.md Part B), which a plain parse would round. Text without a long
 * run of digits takes the plain, faster parse.
 */
export function parseJSONKeepingBigIntegers(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text) as unknown;
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? context.source
      : value,
  ) as unknown;
}
