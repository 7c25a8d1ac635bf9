/**
 * Every generated file is committed as `npm run generate` writes it: the plugin's schema, the OpenAPI
 * document, the handler-set schema and the docs' tables, each made again in memory and compared. The
 * API reports, which come from the build, are test/integration/api-report.test.ts's.
 */
import { describe, expect, it } from "vitest";

import { GENERATE, generatedFiles } from "../../scripts/generate/generate";

describe("the generated files", () => {
  it.each(generatedFiles())("$path is as `npm run generate` writes it", (file) => {
    expect(file.committed === file.generated, `${file.path} is stale: run \`${GENERATE}\``).toBe(true);
  });
});
