/** The provider's Pulumi package schema, as the plugin's `GetSchema` answers it. */

/** The package schema (a placeholder naming the package, until it is generated from the catalog). */
export function pulumiSchema(): Record<string, unknown> {
  return { name: "notification-handlers" };
}
