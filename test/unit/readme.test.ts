import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { catalogTable } from "../../scripts/catalog-table";

const ROOT = join(__dirname, "..", "..");

describe("docs/provider.md", () => {
  it("shows the handler-type table as the catalog has it", () => {
    const page = readFileSync(join(ROOT, "docs", "provider.md"), "utf8");
    expect(page).toContain(catalogTable());
  });
});
