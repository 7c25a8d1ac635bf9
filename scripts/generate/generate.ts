#!/usr/bin/env node
/**
 * Every generated file, made in memory from the catalog, the table of settings, the server's routes
 * and the templates: the plugin's schema, the OpenAPI document, the handler-set schema, and the docs'
 * tables and quickstarts,
 * which stand in their pages between `<!-- generated: NAME -->` and `<!-- end -->`. `npm run generate`
 * writes them, then the API reports from the build; a unit test fails while a committed one differs.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { pulumiSchemaJson } from "../../provider/plugin/schema";
import { openApiDocument } from "../../server/openapi";
import { PLUGIN_SCHEMA_FILE } from "../support/schema-file";
import { REPOSITORY_ROOT } from "../support/user-project";
import { catalogTable, formFieldsTable } from "./catalog-table";
import { handlerSetSchemaJson } from "./handler-set-schema";
import { quickstartChooser, quickstartSections } from "./quickstart";
import { providerSettingsTable, readmeSettingsTable } from "./settings-table";

/** The command that writes them, as a stale file's message names it. */
export const GENERATE = "npm run generate";

/** Each page with generated tables, and its tables by the name their markers give. */
const PAGES: Record<string, Record<string, () => string>> = {
  "README.md": { quickstart: quickstartSections, "settings-keys": readmeSettingsTable },
  "docs/_index.md": { quickstart: quickstartChooser },
  "docs/api.md": { "catalog-form-fields": formFieldsTable },
  "docs/installation-configuration.md": { quickstart: quickstartSections, settings: providerSettingsTable },
  "docs/provider.md": { catalog: catalogTable, settings: providerSettingsTable },
};

/** Each generated file, from the repository root, and what it holds given what it held. */
const FILES: Record<string, (committed: string) => string> = {
  [PLUGIN_SCHEMA_FILE]: pulumiSchemaJson,
  "docs/openapi.json": () => `${JSON.stringify(openApiDocument(), null, 2)}\n`,
  "docs/handler-set.schema.json": handlerSetSchemaJson,
  ...Object.fromEntries(
    Object.entries(PAGES).map(([page, tables]) => [page, (text: string) => withTables(page, text, tables)]),
  ),
};

const TABLE = /(<!-- generated: ([\w-]+) -->)[\s\S]*?(<!-- end -->)/g;

/** `text` with each table between its markers made again; every table of the page must be there. */
function withTables(page: string, text: string, tables: Record<string, () => string>): string {
  const missing = new Set(Object.keys(tables));
  const result = text.replace(TABLE, (_, start: string, name: string, end: string) => {
    const table = tables[name];
    if (table === undefined) throw new Error(`${page}: no generated table is named "${name}"`);
    missing.delete(name);
    return `${start}\n\n${table()}\n\n${end}`;
  });
  for (const name of missing)
    throw new Error(
      `${page} has lost its generated table "${name}": "<!-- generated: ${name} -->" ... "<!-- end -->"`,
    );
  return result;
}

/** A generated file: its path from the repository root, what is committed, what it should hold. */
export interface GeneratedFile {
  path: string;
  committed: string;
  generated: string;
}

/** Every generated file, as committed and as made now. */
export function generatedFiles(): GeneratedFile[] {
  return Object.entries(FILES).map(([path, make]) => {
    const file = join(REPOSITORY_ROOT, path);
    const committed = existsSync(file) ? readFileSync(file, "utf8") : "";
    return { path, committed, generated: make(committed) };
  });
}

if (require.main === module) {
  for (const { path, committed, generated } of generatedFiles()) {
    if (generated === committed) continue;
    writeFileSync(join(REPOSITORY_ROOT, path), generated);
    process.stdout.write(`wrote ${path}\n`);
  }
}
