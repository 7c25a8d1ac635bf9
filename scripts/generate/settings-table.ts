/**
 * The docs' tables of settings from the table of settings: README.md's configuration keys, and every
 * setting the provider reads in docs/provider.md and docs/installation-configuration.md
 * (`npm run generate` writes them).
 */
import { SETTINGS, type Setting } from "../../sdk/client/domain/settings";

type AnySetting = Setting<string> | Setting<number>;

/** Numbers with a space between thousands, as the docs write them. */
function shown(value: string | number): string {
  return typeof value === "number" ? value.toLocaleString("en-US").replaceAll(",", " ") : `\`${value}\``;
}

const code = (text: string | undefined): string => (text === undefined ? "" : `\`${text}\``);

/** A table row; an empty cell is written `| |`, as the docs' hand-written tables had it. */
const row = (cells: string[]): string => `|${cells.map((c) => (c === "" ? " " : ` ${c} `)).join("|")}|`;

/** The settings a Pulumi configuration key sets, in the table's order. */
function configured(): (AnySetting & { configKey: string })[] {
  return Object.values(SETTINGS as Record<string, AnySetting>).filter(
    (s): s is AnySetting & { configKey: string } => s.configKey !== undefined,
  );
}

/** The README's short table: the configuration keys, their variables and one line each. */
export function readmeSettingsTable(): string {
  const lines = ["| configuration key | environment fallback | |", "| --- | --- | --- |"];
  for (const s of configured()) {
    const fallback = s.default === undefined ? "" : ` (default ${shown(s.default)})`;
    lines.push(row([code(s.configKey), code(s.env), `${s.description}${fallback}`]));
  }
  return lines.join("\n");
}

/** docs/provider.md's table: every setting the provider reads (a key or a variable), whole. */
export function providerSettingsTable(): string {
  const lines = [
    "| configuration key | environment variable | default | rule | secret | |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const s of Object.values(SETTINGS as Record<string, AnySetting>)) {
    if (s.configKey === undefined && s.env === undefined) continue;
    const fallback = s.default === undefined ? "" : shown(s.default);
    const secret = s.secret ? "yes" : "no";
    lines.push(
      row([code(s.configKey), code(s.env), fallback, `must be ${s.rule.description}`, secret, s.description]),
    );
  }
  return lines.join("\n");
}
