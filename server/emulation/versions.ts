/** The deployed versions the server can answer as (docs/api.md#deployed). */

/** The deployed versions that can be emulated. */
export const EMULATED_VERSIONS = ["2023", "2025", "2026"] as const;

/** A deployed version of the API, by the year of its server code. */
export type EmulatedVersion = (typeof EMULATED_VERSIONS)[number];

/** Whether `value` names an emulated version. */
export function isEmulatedVersion(value: unknown): value is EmulatedVersion {
  return EMULATED_VERSIONS.some((version) => version === value);
}
