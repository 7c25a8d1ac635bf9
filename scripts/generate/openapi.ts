/**
 * Writes the service's OpenAPI description to `docs/openapi.json` (`npm run docs:openapi`), or
 * prints it with `--stdout`. A unit test fails when the committed file differs from what this makes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openApiDocument } from "../../server/openapi";

/** The committed file, relative to the repository root. */
export const OPENAPI_FILE = join("docs", "openapi.json");

/** The document as the committed file holds it. */
export function openApiJson(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}

if (require.main === module) {
  if (process.argv.includes("--stdout")) {
    process.stdout.write(openApiJson());
  } else {
    // From dist/scripts/generate/ three levels up is the repository root.
    const file = join(__dirname, "..", "..", "..", OPENAPI_FILE);
    writeFileSync(file, openApiJson());
    process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
  }
}
