/**
 * The README stays a page for users (at most 15 KB, with the two commands that set up and test a
 * clone), and its configuration table and docs/provider.md's handler-type and configuration tables
 * are what the catalog and the table of settings generate.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { catalogTable } from "../../scripts/generate/catalog-table";
import { providerSettingsTable, readmeSettingsTable } from "../../scripts/generate/settings-table";

const ROOT = join(__dirname, "..", "..");

describe("README", () => {
  it("stays a README for users: at most 15 KB", () => {
    expect(statSync(join(ROOT, "README.md")).size).toBeLessThanOrEqual(15_360);
  });

  it("keeps the two commands that set up and test a clone", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("```sh\nnpm ci && npm run demo\nnpm test\n```");
  });

  it("shows the configuration table as the table of settings has it (npm run docs:settings)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(readmeSettingsTable());
  });
});

describe("docs/provider.md", () => {
  it("shows the handler-type table as the catalog has it", () => {
    const page = readFileSync(join(ROOT, "docs", "provider.md"), "utf8");
    expect(page).toContain(catalogTable());
  });

  it("shows the configuration table as the table of settings has it (npm run docs:settings)", () => {
    const page = readFileSync(join(ROOT, "docs", "provider.md"), "utf8");
    expect(page).toContain(providerSettingsTable());
  });
});
