/**
 * `notification-handlers summary`: turns `pulumi preview --json` into a Markdown summary for a pull
 * request or a drift check: which handler changes, how, and which fields, with what the server has
 * and what the code wants.
 *
 * The engine's JSON says which resources change; the fields come from the provider's drift notes
 * (provider/core/drift-note.ts: its diff compares the code with the live handler, so they cover edits in
 * the web UI as well as in the code, and say which made each field differ). The plugin's notes carry
 * their resource's URN; the dynamic provider's come without one and name the handler's id and name,
 * which the step's recorded outputs hold. Secret fields are always shown as `[secret]`.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";

import {
  type Diagnostic,
  type DriftNote,
  HANDLER_RESOURCE_TYPES,
  ORIGINS,
  parseDriftNotes,
  renamedField,
  SHOWN_SECRET,
} from "../provider/for-cli";
import { ALL_FIELDS } from "../sdk/client/domain/catalog";
import { type CliIo, CommandError, UsageError, parseCommandLine, readAll } from "./io";
import { markdownText } from "./markdown";
import { type PolicyViolation, policyViolations, violationLines } from "./policy-events";

export const summaryUsage = (program: string): string => `Usage:
  pulumi preview --json | ${program} summary [--title TEXT] [--events EVENTS.json]
  ${program} summary PREVIEW.json [--title TEXT] [--events EVENTS.json]

  Prints a Markdown summary of the notification handlers a preview would change: which resource,
  which handler, which fields (secrets as [secret]), and whether the change was made in the code or
  outside it. With --events, the event log of \`pulumi preview --event-log EVENTS.json\`, it adds
  the policy packs' violations (the preview's JSON has none). Exits 0 whether or not there are
  changes; the preview's own exit code tells that.`;

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
  retainOnDelete?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

interface PreviewDiagnostic extends Diagnostic {
  severity?: string;
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

/** Renders the summary of a preview, with the policy violations its event log held. */
export function renderSummary(
  preview: PreviewJson,
  title = "Notification handlers",
  violations: readonly PolicyViolation[] = [],
): string {
  const notes = parseDriftNotes(preview.diagnostics ?? []);
  const steps = (preview.steps ?? []).filter(
    (s) => HANDLER_RESOURCE_TYPES.includes(typeOfUrn(s.urn)) && s.op in OPS && s.op !== "read",
  );
  // A replacement shows as several steps (create-replacement, replace, delete-replaced); one row each resource.
  const byUrn = new Map<string, PreviewStep>();
  for (const step of steps) if (!byUrn.has(step.urn) || step.op === "replace") byUrn.set(step.urn, step);

  const counts = new Map<string, number>();
  const rows: [string, string][] = [];
  for (const step of byUrn.values()) {
    const change = changeOf(step);
    counts.set(change, (counts.get(change) ?? 0) + 1);
    rows.push([resourceName(step.urn), row(step, change, noteOf(step, notes))]);
  }
  rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const errors = (preview.diagnostics ?? []).filter((d) => d.severity === "error");

  const lines = [`### ${markdownText(title)}`, ""];
  if (rows.length === 0) {
    lines.push("No changes: every handler is as the code declares it.");
  } else {
    const parts = CHANGES.filter((c) => counts.has(c)).map((c) => `${counts.get(c)} to ${c}`);
    lines.push(`${parts.join(", ")}.`, "");
    lines.push(
      "| change | resource | handler | fields (live → code) |",
      "| --- | --- | --- | --- |",
      ...rows.map(([, text]) => text),
    );
  }
  if (violations.length > 0) lines.push("", ...violationLines(violations));
  if (errors.length > 0) {
    lines.push("", "**The preview failed:**", "");
    for (const e of errors) lines.push(`- ${markdownText((e.message ?? "").trim().split("\n")[0] ?? "")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The changes a row may show, in the order the count line names them. */
const CHANGES = ["take over", "create", "update", "replace", "delete"] as const;
type Change = (typeof CHANGES)[number];

/** A step's change; a create with `adopt` takes over a handler that exists rather than making one. */
function changeOf(step: PreviewStep): Change {
  const op = OPS[step.op] as Exclude<Change, "take over">;
  const adopt = step.newState?.inputs?.adopt;
  return op === "create" && adopt !== undefined && adopt !== false ? "take over" : op;
}

const resourceName = (urn: string): string => urn.split("::").pop() ?? urn;

/**
 * The provider's note on a step's handler: the one the engine gave the step's URN (the plugin's), else
 * the one naming its id (ids are unique per site; with several sites in one stack the name tells two
 * notes apart). A takeover's note names the handler it takes over: `adopt`'s id, or its name.
 */
function noteOf(step: PreviewStep, notes: readonly DriftNote[]): DriftNote | undefined {
  const own = notes.find((n) => n.urn === step.urn);
  if (own !== undefined) return own;
  const adopt = step.oldState === undefined ? step.newState?.inputs?.adopt : undefined;
  const names = [step.oldState?.outputs?.name, step.newState?.inputs?.name];
  const id = typeof adopt === "number" ? adopt : handlerIdOf(step);
  const candidates = notes.filter((n) => n.urn === undefined && (n.id === id || adopt === true));
  return candidates.find((n) => namedBy(n, names)) ?? (adopt === true ? undefined : candidates[0]);
}

/** Whether a note is of the handler `names` name: by its live name, or the code's when it was renamed. */
function namedBy(note: DriftNote, names: readonly unknown[]): boolean {
  const renamed = renamedField(note);
  return [note.name, ...(renamed === undefined ? [] : [JSON.parse(renamed.desired) as unknown])].some(
    (name) => names.includes(name),
  );
}

function handlerIdOf(step: PreviewStep): number {
  const recorded = step.oldState?.outputs?.handlerId;
  return typeof recorded === "number" ? recorded : Number(step.oldState?.id ?? NaN);
}

function row(step: PreviewStep, change: Change, note: DriftNote | undefined): string {
  const inputs = step.newState?.inputs ?? {};
  const fields: string[] = [];
  if (change === "create") {
    const enabled = inputs.isEnabled === false ? "disabled" : "enabled";
    const type = typeof inputs.type === "string" ? inputs.type : "";
    fields.push(`new ${type === "" ? "" : `${markdownText(type)} `}handler, ${enabled}; ${kept(step)}`);
  } else if (change === "take over") {
    const adopt = inputs.adopt;
    const which = adopt === true ? "the handler of the same name" : `handler ${JSON.stringify(adopt)}`;
    const writes = note?.kind === "differs" ? "writing the fields below" : "as it is: nothing is written";
    fields.push(`takes over ${which}, ${writes}; ${kept(step)}`);
  } else if (change === "delete") {
    fields.push("the handler is deleted");
  } else if (note?.kind === "gone") {
    fields.push("**deleted outside the code**; made again");
  }
  for (const d of note?.kind === "differs" ? note.fields : []) {
    const origin = d.origin === undefined ? "" : ` (${ORIGINS[d.origin]})`;
    fields.push(`\`${d.property}\`: ${shownValue(d.live)} → ${shownValue(d.desired)}${origin}`);
  }
  if (change === "replace" && note?.kind !== "gone" && (step.replaceReasons ?? []).length > 0) {
    fields.push(`replaced because of ${step.replaceReasons!.map((r) => `\`${r}\``).join(", ")}`);
  }
  if (change === "update" && fields.length === 0) fields.push(...inputChanges(step));
  return `| ${change} | \`${resourceName(step.urn)}\` | ${handlerCell(step, note)} | ${fields.join("<br>") || "—"} |`;
}

/** Whether `pulumi destroy` deletes the handler a create makes or takes over. */
const kept = (step: PreviewStep): string =>
  step.newState?.retainOnDelete === true ? "kept by a destroy (`retainOnDelete`)" : "deleted by a destroy";

/** The handler's id and name as it is live, and as the code has it when that differs. */
function handlerCell(step: PreviewStep, note: DriftNote | undefined): string {
  const code = step.newState?.inputs?.name ?? step.oldState?.outputs?.name;
  const recorded = handlerIdOf(step);
  const id = Number.isInteger(recorded) ? recorded : note?.id;
  if (id === undefined) {
    const adopt = step.newState?.inputs?.adopt;
    return `${adopt === undefined || adopt === false ? "new" : "existing"}: ${markdownText(JSON.stringify(code))}`;
  }
  const renamed = renamedField(note);
  const live = renamed === undefined ? JSON.stringify(step.oldState?.outputs?.name ?? code) : renamed.live;
  const inCode = JSON.stringify(code);
  return `${id} ${markdownText(live)}${code === undefined || live === inCode ? "" : ` (in the code: ${markdownText(inCode)})`}`;
}

/** A value of a note: `[secret]` as it is, anything else escaped. */
const shownValue = (value: string): string => (value === SHOWN_SECRET ? value : markdownText(value));

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
export async function summaryCommand(
  args: string[],
  io: CliIo,
  program = "notification-handlers",
): Promise<number> {
  const parsed = parseCommandLine(
    args,
    {
      title: { type: "string" },
      events: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    true,
  );
  if (parsed.values.help) {
    io.stdout.write(`${summaryUsage(program)}\n`);
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
  const events = parsed.values.events;
  const violations =
    events === undefined
      ? []
      : await readFile(resolve(io.cwd, events), "utf8").then(
          (log) => {
            try {
              return policyViolations(log, events);
            } catch (error) {
              throw new CommandError((error as Error).message);
            }
          },
          (error: NodeJS.ErrnoException) => {
            throw new CommandError(`cannot read ${events}: ${error.code ?? error.message}`);
          },
        );
  io.stdout.write(renderSummary(preview, parsed.values.title, violations));
  return 0;
}
