/**
 * A duration as Pulumi's `customTimeouts` takes it, in Go's form (`30s`, `5m`, `1h30m`, `1.5h`,
 * `.5s`, `0`), in seconds: the dynamic provider's resource passes its timeouts so.
 */

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g;

/** The seconds of `text`; anything else fails naming the option, `customTimeouts.<operation>`. */
export function durationSeconds(text: string, operation: string): number {
  const unsigned = text.startsWith("+") ? text.slice(1) : text;
  if (unsigned === "0") return 0;
  const parts = [...unsigned.matchAll(PART)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== unsigned) {
    throw new Error(
      `customTimeouts.${operation}: ${JSON.stringify(text)} is not a duration such as "30s", "5m" or "1h30m"`,
    );
  }
  return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * UNITS[unit!]!, 0);
}
