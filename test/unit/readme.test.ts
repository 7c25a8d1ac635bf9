import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { catalogTable } from "../../scripts/catalog-table";

describe("README", () => {
  it("shows the handler-type table as the catalog has it", () => {
    const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
    expect(readme).toContain(catalogTable());
  });
});
