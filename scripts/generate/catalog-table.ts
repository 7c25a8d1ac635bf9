/**
 * The docs' tables of handler types from the catalog: docs/provider.md's, with the provider's inputs,
 * and docs/api.md's, with the API's form fields (`npm run generate` writes both).
 */
import {
  type FieldSpec,
  HANDLER_TYPES,
  HANDLER_TYPE_NAMES,
  RULE_DESCRIPTIONS,
} from "../../sdk/client/domain/catalog";

/** A table with a row per field, a type without fields on a row of its own saying so. */
function fieldTable(header: string[], cells: (field: FieldSpec) => string[]): string {
  const lines = [`| ${header.join(" | ")} |`, `|${" --- |".repeat(header.length)}`];
  for (const type of HANDLER_TYPE_NAMES) {
    const { label, fields } = HANDLER_TYPES[type];
    const name = `\`${type}\` (${label})`;
    if (fields.length === 0) lines.push(`| ${name} | none |${" |".repeat(header.length - 2)}`);
    for (const f of fields) lines.push(`| ${[name, ...cells(f)].join(" | ")} |`);
  }
  return lines.join("\n");
}

const rule = (f: FieldSpec): string[] => [
  RULE_DESCRIPTIONS[f.rule],
  String(f.maxLength),
  f.secret ? "yes" : "no",
];

/** docs/provider.md's table: each type's inputs, with the form field each is sent as. */
export function catalogTable(): string {
  return fieldTable(["type", "input (API form field)", "rule", "max length", "secret"], (f) => [
    `\`${f.property}\` (\`${f.field}\`)`,
    ...rule(f),
  ]);
}

/** docs/api.md's table: each type's form fields. */
export function formFieldsTable(): string {
  return fieldTable(["type", "form field", "value rule", "max length", "secret"], (f) => [
    `\`${f.field}\``,
    ...rule(f),
  ]);
}
