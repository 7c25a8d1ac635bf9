/**
 * Where the plugin's Pulumi package schema is committed: `npm run generate` writes it, the SDK build
 * reads it. A leaf of its own, so that the release scripts load none of the generators.
 */

/** The plugin's Pulumi package schema, from the repository root: the package ships it, the SDKs come from it. */
export const PLUGIN_SCHEMA_FILE = "provider/schema.json";
