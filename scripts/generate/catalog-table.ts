#!/usr/bin/env node
/**
 * Prints the table of handler types in docs/provider.md from the catalog (`npm run docs:catalog`); a
 * unit test keeps docs/provider.md in step with it.
 */
import { HANDLER_TYPES, HANDLER_TYPE_NAMES, RULE_DESCRIPTIONS } from "../../sdk/client/domain/catalog";

/** The handler-type table, as Markdown. */
export function catalogTable(): string {
  const lines = [
    "| type | input (API form field) | rule | max length | secret |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const type of HANDLER_TYPE_NAMES) {
    const { label, fields } = HANDLER_TYPES[type];
    if (fields.length === 0) {
      lines.push(`| \`${type}\` (${label}) | none | | | |`);
      continue;
    }
    for (const f of fields) {
      lines.push(
        `| \`${type}\` (${label}) | \`${f.property}\` (\`${f.field}\`) | ${RULE_DESCRIPTIONS[f.rule]} | ${f.maxLength} | ${f.secret ? "yes" : "no"} |`,
      );
    }
  }
  return lines.join("\n");
}

if (require.main === module) process.stdout.write(`${catalogTable()}\n`);
