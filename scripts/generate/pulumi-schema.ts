/**
 * Writes the Pulumi package schema of the plugin to `provider/schema.json` from the catalog
 * (`npm run provider:schema`); the SDKs of every language other than TypeScript are generated from
 * that file. A unit test fails when the committed file differs from what this makes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { pulumiSchemaJson } from "../../provider/plugin/schema";

/** The committed file, relative to the repository root; the package ships it. */
export const SCHEMA_FILE = join("provider", "schema.json");

if (require.main === module) {
  // From dist/scripts/generate/ three levels up is the repository root.
  writeFileSync(join(__dirname, "..", "..", "..", SCHEMA_FILE), pulumiSchemaJson());
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
