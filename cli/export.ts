/**
 * `notification-handlers export`: reads every handler of an account and writes a Pulumi project that
 * takes each one over, and with `--stack` makes the stack and fills its encrypted config.
 *
 * All or nothing: the account is read and the plan built before anything is written; the stack is
 * made last, and removed again when its config cannot be set; and any failure after the first write
 * puts the output folder back as it was, so the same command can simply run again.
 */
import { readdir } from "node:fs/promises";
import { basename, resolve } from "node:path";

import { NotificationHandlersClient } from "../sdk/client/client";
import { API_KEY_ENV, BASE_URL_ENV } from "../sdk/client/client-options";
import {
  APIConnectionError,
  AuthenticationError,
  NotificationHandlersError,
  ServiceNotFoundError,
} from "../sdk/client/core/errors";
import { CONFIG_KEYS } from "../provider/for-cli";
import { UPDATE_STRATEGIES, type UpdateStrategy } from "../sdk/client/domain/settings";
import { type CliIo, CommandError, UsageError, counted, parseCommandLine } from "./io";
import { OutputFolder } from "./export-folder";
import { type ExportPlan, planExport } from "./export-plan";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  configCommands,
  projectNameOf,
  renderProject,
} from "./project-files";
import { configureStack } from "./stack-config";
import {
  type StrategyChoice,
  chooseUpdateStrategy,
  parseUpdateStrategy,
  strategyLine,
} from "./update-strategy";
import { readWholeAccount, type WholeAccount } from "../sdk/client/domain/whole-account";

export const EXPORT_USAGE = `Usage:
  ${API_KEY_ENV}=... notification-handlers export --base-url URL --out DIR [--stack NAME]
      [--format typescript|yaml] [--project NAME] [--package SPEC]
      [--update-strategy in-place|replace] [--full-ownership] [--force]

  Writes a Pulumi project to DIR with one NotificationHandler per handler of the account, each taking
  its handler over (adopt: <id>): the first \`pulumi up\` creates and deletes nothing. When the export
  fails, DIR is left as it was.
  The API key comes from ${API_KEY_ENV} only (never a flag: flags show in process lists).
  --base-url defaults to ${BASE_URL_ENV}.
  --stack NAME makes that stack in the Pulumi backend the CLI is logged in to (\`pulumi login\` first)
    and sets the base URL, the API key and every secret value into its encrypted config. Without it,
    no secret is written anywhere, and the project's README lists the commands that set them.
  --format yaml writes the handlers as a handler set, handlers.yaml, that index.ts declares (secrets
    as { secret: <stack config key> }); the default, typescript, writes them into index.ts.
  --project names the Pulumi project (default: DIR's name).
  --package is the dependency on this package in package.json (default: ^VERSION).
  --update-strategy sets the provider's ${CONFIG_KEYS.updateStrategy} for the project.
    Default: replace when the site answers as a deployed instance (its list carries
    meta.total_results; their 2025 and 2026 versions do not apply in-place updates), else in-place.
    With --stack it is set in the stack's config; without it, the printed commands and the
    project's README set replace when it is chosen.
  --full-ownership writes the resources without Pulumi's retainOnDelete option. By default each has
    retainOnDelete: true, so a \`pulumi destroy\`, a resource removed from the code, or a replacement
    leaves its handler in the account; the project's README says how to hand them over later.
  --force writes into a DIR that is not empty (files of the same names are replaced), and sets the
    config of a --stack that already exists.`;

/** Longest wait of one request; a list page of 1000 handlers is the slowest answer. */
const TIMEOUT_MS = 60_000; // 60 s

/** What the command was asked to do, checked. */
interface ExportRequest {
  baseUrl: string;
  apiKey: string;
  out: string;
  project: string;
  packageSpec: string;
  stack: string | undefined;
  format: ExportFormat;
  /** `--update-strategy`; undefined leaves it to the detection. */
  updateStrategy: UpdateStrategy | undefined;
  /** `--full-ownership`: the program's resources without `retainOnDelete`. */
  fullOwnership: boolean;
  force: boolean;
}

/** Runs the command; resolves to the exit code. */
export async function exportCommand(args: string[], io: CliIo, version: string): Promise<number> {
  const request = await parseRequest(args, io, version);
  if (request === undefined) {
    io.stdout.write(`${EXPORT_USAGE}\n`);
    return 0;
  }
  const account = await readAccount(request);
  const plan = planExport(account.handlers);
  const strategy = chooseUpdateStrategy(request.updateStrategy, account.dialect);
  const files = renderProject(plan, {
    format: request.format,
    project: request.project,
    baseUrl: request.baseUrl,
    packageSpec: request.packageSpec,
    stack: request.stack,
    updateStrategy: strategy,
    fullOwnership: request.fullOwnership,
  });
  const folder = await OutputFolder.open(request.out);
  try {
    await folder.write(files).catch((error: unknown) => {
      throw new CommandError(`writing the project to ${request.out} failed: ${messageOf(error)}`);
    });
    if (request.stack !== undefined) {
      await configureStack({
        workDir: request.out,
        project: request.project,
        stack: request.stack,
        force: request.force,
        config: stackConfig(plan, request, strategy),
      });
    }
  } catch (error) {
    throw await restoring(folder, request.out, error);
  }
  // The report is the command's output; errors alone go to stderr.
  io.stdout.write(describe(plan, request, strategy));
  io.stdout.write(`${strategyLine(strategy)}\n`);
  if (request.stack === undefined) {
    io.stdout.write(
      "\nNo stack was made, so no secret was stored. Make one and set its config (each --secret command\n" +
        "prompts for the value), or run the export again with --stack NAME:\n\n" +
        `  cd ${request.out}\n` +
        configCommands(plan, request.baseUrl, strategy)
          .map((line) => `  ${line}\n`)
          .join(""),
    );
    return 0;
  }
  io.stdout.write(
    `\nStack ${request.stack} is made and configured (${counted(plan.secrets.length + 1, "secret")}, encrypted). Next:\n\n` +
      `  cd ${request.out}\n  npm install\n  pulumi up --stack ${request.stack}\n`,
  );
  return 0;
}

async function parseRequest(args: string[], io: CliIo, version: string): Promise<ExportRequest | undefined> {
  const { values } = parseCommandLine(args, {
    "base-url": { type: "string" },
    out: { type: "string" },
    stack: { type: "string" },
    project: { type: "string" },
    package: { type: "string" },
    "update-strategy": { type: "string" },
    format: { type: "string", default: "typescript" },
    "full-ownership": { type: "boolean", default: false },
    force: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) return undefined;

  const apiKey = trimmedNonBlank(io.env[API_KEY_ENV]);
  if (apiKey === undefined) throw new UsageError(`${API_KEY_ENV} must hold the account's API key`);
  const baseUrl = trimmedNonBlank(values["base-url"]) ?? trimmedNonBlank(io.env[BASE_URL_ENV]);
  if (baseUrl === undefined) throw new UsageError(`--base-url (or ${BASE_URL_ENV}) is required`);
  if (!URL.canParse(baseUrl) || !["http:", "https:"].includes(new URL(baseUrl).protocol)) {
    throw new UsageError(`--base-url must be an absolute http or https URL, got "${baseUrl}"`);
  }
  const outFlag = trimmedNonBlank(values.out);
  if (outFlag === undefined)
    throw new UsageError("--out DIR is required: the folder to write the project to");
  const out = resolve(io.cwd, outFlag);
  const stack = trimmedNonBlank(values.stack);
  if (stack !== undefined && !/^[A-Za-z0-9_.\-/]+$/.test(stack)) {
    throw new UsageError(`--stack must be a stack name (letters, digits, -, _, . and /), got "${stack}"`);
  }
  const project = trimmedNonBlank(values.project) ?? projectNameOf(basename(out));
  if (!/^[A-Za-z0-9_.-]+$/.test(project)) {
    throw new UsageError(`--project must be letters, digits, -, _ and . only, got "${project}"`);
  }
  const strategyFlag = values["update-strategy"];
  const updateStrategy = strategyFlag === undefined ? undefined : parseUpdateStrategy(strategyFlag.trim());
  if (strategyFlag !== undefined && updateStrategy === undefined) {
    throw new UsageError(
      `--update-strategy must be ${UPDATE_STRATEGIES.join(" or ")}, got "${strategyFlag}"`,
    );
  }
  const format = EXPORT_FORMATS.find((f) => f === values.format?.trim());
  if (format === undefined) {
    throw new UsageError(`--format must be ${EXPORT_FORMATS.join(" or ")}, got "${values.format}"`);
  }
  const force = values.force === true;
  const existing = await readdir(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    if (error.code === "ENOTDIR") throw new UsageError(`--out ${outFlag} is a file, not a folder`);
    throw error;
  });
  if (existing.length > 0 && !force) {
    throw new UsageError(
      `--out ${outFlag} exists and is not empty (${existing.length} entries); choose a new folder, or pass --force to write the project's files into it`,
    );
  }
  return {
    baseUrl,
    apiKey,
    out,
    project,
    packageSpec: trimmedNonBlank(values.package) ?? `^${version}`,
    stack,
    format,
    updateStrategy,
    fullOwnership: values["full-ownership"] === true,
    force,
  };
}

/**
 * Every handler of the account, and the list shape the site answered in; failures say what is wrong
 * in the user's terms.
 */
async function readAccount(request: ExportRequest): Promise<WholeAccount> {
  const client = new NotificationHandlersClient({
    baseURL: request.baseUrl,
    apiKey: request.apiKey,
    timeout: TIMEOUT_MS,
    maxRetries: 4,
  });
  const where = new URL(request.baseUrl).origin + new URL(request.baseUrl).pathname.replace(/\/$/, "");
  try {
    return await readWholeAccount(client.notificationHandlers);
  } catch (error) {
    if (error instanceof AuthenticationError) {
      throw new CommandError(`${where} refused the API key in ${API_KEY_ENV} (${error.message})`);
    }
    if (error instanceof ServiceNotFoundError) {
      throw new CommandError(
        `${where} has no Notification Handlers API: it answered with a web page, not the API ` +
          "(a wrong --base-url, or a site with the feature switched off)",
      );
    }
    if (error instanceof APIConnectionError) {
      throw new CommandError(`cannot reach ${where}: ${error.message}`);
    }
    if (error instanceof NotificationHandlersError) {
      throw new CommandError(`reading the handlers of ${where} failed: ${error.message}`);
    }
    throw error;
  } finally {
    await client.close();
  }
}

/**
 * The stack's config. The strategy is set even when it is the default `in-place`: with `--force`
 * the stack may exist and hold another value.
 */
function stackConfig(
  plan: ExportPlan,
  request: ExportRequest,
  strategy: StrategyChoice,
): Record<string, { value: string; secret: boolean }> {
  const config: Record<string, { value: string; secret: boolean }> = {
    [CONFIG_KEYS.baseUrl]: { value: request.baseUrl, secret: false },
    [CONFIG_KEYS.apiKey]: { value: request.apiKey, secret: true },
    [CONFIG_KEYS.updateStrategy]: { value: strategy.strategy, secret: false },
  };
  for (const secret of plan.secrets)
    config[`${request.project}:${secret.configKey}`] = { value: secret.value, secret: true };
  return config;
}

/**
 * The failure `error`, once the output folder is back as it was; or, when that fails too, what the
 * user has to clear by hand before running the export again.
 */
async function restoring(folder: OutputFolder, out: string, error: unknown): Promise<CommandError> {
  try {
    await folder.restore();
  } catch (restoreError) {
    return new CommandError(
      `${messageOf(error)}; putting ${out} back as it was failed too (${messageOf(restoreError)}): remove the files the export wrote before running it again`,
    );
  }
  return new CommandError(`${messageOf(error)}; ${out} is left as it was`);
}

function describe(plan: ExportPlan, request: ExportRequest, strategy: StrategyChoice): string {
  const lines = [
    `Exported ${counted(plan.handlers.length, "handler")} to ${request.out} (${counted(plan.secrets.length, "secret value")}, none written to a file).`,
  ];
  for (const s of plan.skipped)
    lines.push(`  not exported: handler ${s.id} (${JSON.stringify(s.name)}): ${s.reason}`);
  for (const w of plan.warnings) lines.push(`  warning: ${w}`);
  if (!request.fullOwnership) {
    lines.push(
      "Each resource has retainOnDelete: a destroy, a removed resource or a replacement leaves its handler in",
      `the account (the README's "Ownership" says how to hand them over).`,
    );
    if (strategy.strategy === "replace") {
      lines.push(
        "Under the replace strategy every change is a replacement: until they are handed over, each change",
        "leaves the old handler beside the new one.",
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const trimmedNonBlank = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim();
