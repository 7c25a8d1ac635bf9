/**
 * `notification-handlers recover`: after a deploy was cut off (a lost runner, kill -9), turns each
 * pending create of a handler into the resource it made, or clears it when it made nothing, so the
 * next `pulumi up` neither creates a duplicate nor leaves an orphan (docs/interrupted-deploys.md).
 * Reads the state with `pulumi stack export --show-secrets` and writes it back with `pulumi stack
 * import` through a pipe (never a file), which encrypts the secrets again.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";

import {
  clientOptions,
  connectionId,
  explicitConnection,
  readSettings,
  requireConnection,
} from "../provider/for-cli";
import { NotificationHandlersClient } from "../sdk/client/client";
import type { NotificationHandlerRecord as ApiHandler } from "../sdk/client/domain/resources/handler-parsing";
import { readWholeAccount } from "../sdk/client/domain/whole-account";
import { type CliIo, CommandError, UsageError, parseCommandLine } from "./io";
import { applyRecovery } from "./recover-edit";
import { type Decision, planRecovery } from "./recover-plan";
import {
  type ExportedState,
  type StateResource,
  parseExportedState,
  plainInputs,
  providerConfig,
} from "./state-json";

/** The command's usage, as `program` runs it (this package's bin, or the plugin's executable). */
export const recoverUsage = (program: string): string => `Usage:
  ${program} recover [--stack NAME] [--since DATETIME] [--dry-run]
  ${program} recover --state EXPORT.json --since DATETIME [--output FILE]

  Run in the project folder before \`pulumi up\` after a deploy was cut off. Each pending create of a
  handler becomes the resource it made (exactly one handler of the same values, made since the
  update began and in no resource of the stack), or is cleared when it made none; one line per
  pending operation says which. When a pending operation cannot be resolved without a guess, it
  says why, lists the candidates, writes nothing and exits 1. A stack still locked by the cut-off
  update needs \`pulumi cancel\` first, once no update runs.
  --since: the interrupted update's start (ISO 8601); default: the start of the newest update in
    \`pulumi stack history\`, less 5 minutes for clock skew.
  --state: an export made with \`pulumi stack export --show-secrets\` instead of the stack's;
    the result goes to --output (a file holding secrets in plain text), or nowhere.`;

/** How much earlier than the recorded start a handler may be dated (the server's and runner's clocks differ). */
const CLOCK_SKEW_MS = 5 * 60_000; // 5 min

interface RecoverRequest {
  stack: string | undefined;
  since: Date | undefined;
  dryRun: boolean;
  stateFile: string | undefined;
  output: string | undefined;
}

/**
 * Runs the command; resolves to its exit code (1 when anything was refused). `program` names what
 * runs it in the usage: this package's bin, or the plugin's executable (`./plugin-command-line.ts`).
 */
export async function recoverCommand(
  args: string[],
  io: CliIo,
  program = "notification-handlers",
): Promise<number> {
  const request = parseRequest(args, io);
  if (request === undefined) {
    io.stdout.write(`${recoverUsage(program)}\n`);
    return 0;
  }
  const pulumi = (pulumiArgs: string[], input?: string): Promise<string> =>
    runPulumi([...pulumiArgs, ...(request.stack === undefined ? [] : ["--stack", request.stack])], io, input);

  const state =
    request.stateFile === undefined
      ? parseExportedState(await pulumi(["stack", "export", "--show-secrets"]), "`pulumi stack export`")
      : parseExportedState(await readFile(request.stateFile, "utf8"), request.stateFile);
  const pending = state.deployment.pending_operations ?? [];
  if (pending.length === 0) {
    io.stdout.write("no pending operations: nothing to recover\n");
    return 0;
  }
  const since = request.since ?? (await updateStart(pulumi, state));
  const decisions = planRecovery({
    deployment: state.deployment,
    accountOf: (resource) => connectionId(connectionOf(state, resource, io.env)),
    handlers: await readAccounts(state, io.env),
    since,
  });
  // The lines are printed once the outcome is known: a refused or failed write changes nothing.
  const report = (): void => {
    for (const decision of decisions) io.stdout.write(`${describe(decision)}\n`);
  };
  const refused = decisions.filter((d) => d.kind === "refuse").length;
  if (refused > 0) {
    report();
    io.stdout.write(`nothing written: ${refused} pending operation(s) refused\n`);
    return 1;
  }
  const imported = decisions.filter((d) => d.kind === "import").length;
  const counts = `${imported} imported, ${decisions.length - imported} cleared`;
  if (request.dryRun) {
    report();
    io.stdout.write(`dry run, nothing written (${counts})\n`);
    return 0;
  }
  const text = `${JSON.stringify(applyRecovery(state, decisions), null, 2)}\n`;
  if (request.stateFile !== undefined) {
    if (request.output !== undefined) await writeFile(request.output, text, { mode: 0o600 });
    report();
    io.stdout.write(
      request.output === undefined
        ? `nothing written: no --output (${counts})\n`
        : `written to ${request.output} (${counts})\n`,
    );
    return 0;
  }
  await pulumi(["stack", "import"], text);
  report();
  io.stdout.write(`state written (${counts})\n`);
  return 0;
}

/** One line about one decision. */
export function describe(decision: Decision): string {
  const urn = decision.pending.resource.urn;
  switch (decision.kind) {
    case "import":
      return `imported ${urn} = ${decision.handler.id}`;
    case "clear":
      return `cleared ${urn}: its create made no handler; the next \`pulumi up\` creates it`;
    case "drop":
      return `cleared ${urn}: an interrupted ${decision.pending.type.replace(/ing$/, "e")}; the next run repeats it`;
    case "refuse":
      return (
        `refused ${urn}: ${decision.reason}` +
        (decision.candidates.length === 0
          ? ""
          : `; candidates: ${decision.candidates.join(", ")}: delete the ones the stack did not make, then run recover again`)
      );
  }
}

/** The connection a handler resource uses: its own `connection`, else its provider's configuration. */
function connectionOf(state: ExportedState, resource: StateResource, env: NodeJS.ProcessEnv) {
  const own = explicitConnection(plainInputs(resource));
  if (own !== undefined && own !== "unknown") return own;
  return requireConnection(readSettings(providerConfig(state.deployment, resource), env));
}

/** Every handler of each account the pending creates use, by connection key. */
async function readAccounts(
  state: ExportedState,
  env: NodeJS.ProcessEnv,
): Promise<Map<string, ApiHandler[]>> {
  const accounts = new Map<string, ApiHandler[]>();
  for (const pending of state.deployment.pending_operations ?? []) {
    if (pending.type !== "creating") continue;
    let connection;
    try {
      connection = connectionOf(state, pending.resource, env);
    } catch {
      continue; // not a handler, or no connection: the plan refuses or clears it without the API
    }
    const key = connectionId(connection);
    if (accounts.has(key)) continue;
    const settings = readSettings(providerConfig(state.deployment, pending.resource), env);
    const client = new NotificationHandlersClient(clientOptions(connection, settings));
    try {
      accounts.set(key, (await readWholeAccount(client.notificationHandlers)).handlers);
    } finally {
      await client.close();
    }
  }
  return accounts;
}

/**
 * A lower bound of the interrupted update's start, less the clock-skew allowance: the start of the
 * newest update in the stack's history (the interrupted one, or the one before it); with no history
 * (a first update cut off, on a backend that records updates when they end), the earliest `created`
 * of the state's resources, which that update registered.
 */
async function updateStart(pulumi: (args: string[]) => Promise<string>, state: ExportedState): Promise<Date> {
  const history = JSON.parse(await pulumi(["stack", "history", "--json"])) as { startTime?: string }[] | null;
  const starts = (history ?? []).map((u) => Date.parse(u.startTime ?? ""));
  const created = (state.deployment.resources ?? []).map((r) => Date.parse(String(r.created)));
  const known = (times: number[]): number[] => times.filter((t) => !Number.isNaN(t));
  const bound = known(starts).length > 0 ? Math.max(...known(starts)) : Math.min(...known(created));
  if (!Number.isFinite(bound))
    throw new CommandError(
      "neither the stack's history nor its state dates the update: give its start with --since",
    );
  return new Date(bound - CLOCK_SKEW_MS);
}

/** Runs the Pulumi CLI in the project folder; its output, or an error with what it printed. */
function runPulumi(args: string[], io: CliIo, input?: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn("pulumi", [...args, "--non-interactive"], {
      cwd: io.cwd,
      env: io.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    child.once("error", (error: NodeJS.ErrnoException) =>
      fail(
        new CommandError(
          error.code === "ENOENT"
            ? "could not run pulumi: the Pulumi CLI is not on PATH"
            : `could not run pulumi: ${error.message}`,
        ),
      ),
    );
    child.once("close", (code) => {
      if (code === 0) return done(stdout);
      const said = stderr.trim().split("\n").slice(-3).join(" ");
      fail(new CommandError(`\`pulumi ${args.join(" ")}\` failed (nothing written): ${said}`));
    });
    child.stdin.end(input ?? "");
  });
}

function parseRequest(args: string[], io: CliIo): RecoverRequest | undefined {
  const { values } = parseCommandLine(args, {
    stack: { type: "string" },
    since: { type: "string" },
    state: { type: "string" },
    output: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) return undefined;
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since !== undefined && Number.isNaN(since.getTime()))
    throw new UsageError(
      `--since must be an ISO 8601 datetime such as 2026-05-01T13:45:00Z, got "${values.since}"`,
    );
  if (values.state !== undefined && since === undefined)
    throw new UsageError("--since is required with --state: the interrupted update's start");
  if (values.output !== undefined && values.state === undefined)
    throw new UsageError("--output goes with --state; without it the stack's state is written");
  return {
    stack: values.stack,
    since,
    dryRun: values["dry-run"] === true,
    stateFile: values.state === undefined ? undefined : resolve(io.cwd, values.state),
    output: values.output === undefined ? undefined : resolve(io.cwd, values.output),
  };
}
