/**
 * `notification-handlers summary`: turns `pulumi preview --json` into a Markdown summary for a pull
 * request or a drift check: which handler changes, how, and which fields, with what the server has
 * and what the code wants.
 *
 * The engine's JSON says which resources change; the fields come from the provider's drift notes
 * (provider/drift-note.ts: its diff compares the code with the live handler, so they cover edits in
 * the web UI as well as in the code), which the engine passes on as diagnostics without a resource.
 * A note names the handler's id and name, which the step's recorded outputs hold. Secret fields are
 * always shown as `[secret]`, whatever the input holds.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

import { type DriftNote, SHOWN_SECRET, parseDriftNotes } from "../provider/drift-note";
import { RESOURCE_TYPE } from "../provider/resource-type";
import { ALL_FIELDS } from "../sdk/client/catalog";
import { type CliIo, CommandError, UsageError, readAll } from "./io";
import { markdownText } from "./markdown";

export const SUMMARY_USAGE = `Usage:
  pulumi preview --json | notification-handlers summary [--title TEXT]
  notification-handlers summary PREVIEW.json [--title TEXT]

  Prints a Markdown summary of the notification handlers a preview would change: which resource,
  which handler, which fields (secrets as [secret]), and whether the change was made in the code or
  outside it. Exits 0 whether or not there are changes; the preview's own exit code tells that.`;

const SECRET_PROPERTIES = new Set(ALL_FIELDS.filter((f) => f.secret).map((f) => f.property));

/** One step of `pulumi preview --json`, as far as it is read here. */
interface PreviewStep {
  op: string;
  urn: string;
  oldState?: StepState;
  newState?: StepState;
  replaceReasons?: string[];
}

interface StepState {
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

interface PreviewDiagnostic {
  message?: string;
  severity?: string;
  urn?: string;
}

/** The part of `pulumi preview --json` the summary reads. */
export interface PreviewJson {
  steps?: PreviewStep[];
  diagnostics?: PreviewDiagnostic[];
}

const OPS: Record<string, string> = {
  create: "create",
  update: "update",
  replace: "replace",
  "create-replacement": "replace",
  delete: "delete",
  read: "read",
};

/**
 * A resource's own type from its URN (`urn:pulumi:STACK::PROJECT::TYPE::NAME`), where TYPE is
 * `PARENT$...$TYPE` for a child such as a handler of a `HandlerSet`.
 */
function typeOfUrn(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/** Renders the summary of a preview. */
export function renderSummary(preview: PreviewJson, title = "Notification handlers"): string {
  const notes = parseDriftNotes((preview.diagnostics ?? []).map((d) => d.message ?? ""));
  const steps = (preview.steps ?? []).filter(
    (s) => typeOfUrn(s.urn) === RESOURCE_TYPE && s.op in OPS && s.op !== "read",
  );
  // A replacement shows as several steps (create-replacement, replace, delete-replaced); one row each resource.
  const byUrn = new Map<string, PreviewStep>();
  for (const step of steps) if (!byUrn.has(step.urn) || step.op === "replace") byUrn.set(step.urn, step);

  const counts = new Map<string, number>();
  const rows: string[] = [];
  for (const step of byUrn.values()) {
    const op = OPS[step.op]!;
    counts.set(op, (counts.get(op) ?? 0) + 1);
    rows.push(row(step, op, notes));
  }
  const errors = (preview.diagnostics ?? []).filter((d) => d.severity === "error");

  const lines = [`### ${markdownText(title)}`, ""];
  if (rows.length === 0) {
    lines.push("No changes: every handler is as the code declares it.");
  } else {
    const order = ["create", "update", "replace", "delete"];
    const parts = order.filter((op) => counts.has(op)).map((op) => `${counts.get(op)} to ${op}`);
    lines.push(`${parts.join(", ")}.`, "");
    lines.push(
      "| change | resource | handler | fields (live → code) |",
      "| --- | --- | --- | --- |",
      ...rows,
    );
  }
  if (errors.length > 0) {
    lines.push("", "**The preview failed:**", "");
    for (const e of errors) lines.push(`- ${markdownText((e.message ?? "").trim().split("\n")[0] ?? "")}`);
  }
  return `${lines.join("\n")}\n`;
}

function row(step: PreviewStep, op: string, notes: readonly DriftNote[]): string {
  const resource = step.urn.split("::").pop() ?? step.urn;
  const recorded = step.oldState?.outputs ?? {};
  const id = typeof recorded.handlerId === "number" ? recorded.handlerId : Number(step.oldState?.id ?? NaN);
  const name = step.newState?.inputs?.name ?? recorded.name;
  const handler = Number.isInteger(id)
    ? `${id} ${markdownText(JSON.stringify(recorded.name ?? name))}`
    : `new: ${markdownText(JSON.stringify(name))}`;
  // Ids are unique per site; with several sites in one stack the quoted name tells two notes apart.
  const candidates = notes.filter((n) => n.id === id);
  const note = candidates.find((n) => [recorded.name, name].includes(n.name)) ?? candidates[0];
  const fields: string[] = [];
  if (op === "create") {
    const adopt = step.newState?.inputs?.adopt;
    fields.push(
      adopt === undefined || adopt === false
        ? "new handler"
        : `takes over ${adopt === true ? "the handler of the same name" : `handler ${JSON.stringify(adopt)}`}`,
    );
  } else if (op === "delete") {
    fields.push("the handler is deleted");
  } else if (note?.kind === "gone") {
    fields.push("**deleted outside the code**; made again");
  }
  for (const change of note?.kind === "differs" ? note.fields : []) {
    const origin = originOf(step, change.property);
    fields.push(
      `\`${change.property}\`: ${shownValue(change.live)} → ${shownValue(change.desired)}${origin === "" ? "" : ` (${origin})`}`,
    );
  }
  if (
    op === "replace" &&
    note?.kind !== "gone" &&
    step.replaceReasons !== undefined &&
    step.replaceReasons.length > 0
  ) {
    fields.push(`replaced because of ${step.replaceReasons.map((r) => `\`${r}\``).join(", ")}`);
  }
  if (op === "update" && fields.length === 0) fields.push(...inputChanges(step));
  return `| ${op} | \`${resource}\` | ${handler} | ${fields.join("<br>") || "—"} |`;
}

/** A value of a note: `[secret]` as it is, anything else escaped. */
const shownValue = (value: string): string => (value === SHOWN_SECRET ? value : markdownText(value));

/** Whether a field differs because the code changed it, or because someone changed the handler. */
function originOf(step: PreviewStep, property: string): string {
  const before = step.oldState?.inputs?.[property];
  const after = step.newState?.inputs?.[property];
  if (SECRET_PROPERTIES.has(property)) return "";
  if (before === undefined || after === undefined) return "";
  return JSON.stringify(before) === JSON.stringify(after)
    ? "changed outside the code"
    : "changed in the code";
}

/** The inputs a step changes, for an update the provider did not comment on. */
function inputChanges(step: PreviewStep): string[] {
  const before = step.oldState?.inputs ?? {};
  const after = step.newState?.inputs ?? {};
  const keys = new Set([...Object.keys(before), ...Object.keys(after)].filter((k) => !k.startsWith("__")));
  return [...keys]
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .map((k) => {
      const show = (v: unknown): string =>
        SECRET_PROPERTIES.has(k) ? "[secret]" : v === undefined ? "(unset)" : markdownText(JSON.stringify(v));
      return `\`${k}\`: ${show(before[k])} → ${show(after[k])}`;
    });
}

/** Runs the command; resolves to the exit code. */
export async function summaryCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { title: { type: "string" }, help: { type: "boolean", short: "h", default: false } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) {
    io.stdout.write(`${SUMMARY_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length > 1)
    throw new UsageError("summary takes at most one file: the preview's JSON");
  const file = parsed.positionals[0];
  const source = file === undefined || file === "-" ? "stdin" : file;
  const text =
    source === "stdin"
      ? await readAll(io.stdin)
      : await readFile(resolve(io.cwd, source), "utf8").catch((error: NodeJS.ErrnoException) => {
          throw new CommandError(`cannot read ${source}: ${error.code ?? error.message}`);
        });
  let preview: PreviewJson;
  try {
    preview = JSON.parse(text) as PreviewJson;
  } catch {
    throw new CommandError(
      `${source} is not the JSON of \`pulumi preview --json\`${text.trim() === "" ? " (it is empty: did the preview fail before it started?)" : ""}`,
    );
  }
  if (
    typeof preview !== "object" ||
    preview === null ||
    (!Array.isArray(preview.steps) && !Array.isArray(preview.diagnostics))
  ) {
    throw new CommandError(`${source} is JSON, but not that of \`pulumi preview --json\` (no "steps")`);
  }
  io.stdout.write(renderSummary(preview, parsed.values.title));
  return 0;
}
