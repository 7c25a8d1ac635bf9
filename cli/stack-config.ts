/**
 * `export --stack`: makes the stack in the current Pulumi backend and sets its config through the
 * Automation API. The Automation API runs the Pulumi CLI, and its errors quote the command line,
 * which carries the config values; every message that leaves here has each secret value blanked.
 */
import type * as AutomationModule from "@pulumi/pulumi/automation";

import { CommandError } from "./io";

/** A config value and whether the stack encrypts it. */
interface ConfigEntry {
  value: string;
  secret: boolean;
}

/** What {@link configureStack} needs. */
interface StackConfigRequest {
  /** The project folder (holds `Pulumi.yaml`). */
  workDir: string;
  stack: string;
  /** Set the config of a stack that already exists instead of refusing. */
  force: boolean;
  /** Full keys (`project:key`) to values. */
  config: Record<string, ConfigEntry>;
}

type Automation = typeof AutomationModule;

/** Makes (or with `force`, selects) the stack and sets every config value; on failure removes a stack it made. */
export async function configureStack(request: StackConfigRequest): Promise<void> {
  const secrets = Object.values(request.config)
    .filter((entry) => entry.secret)
    .map((entry) => entry.value);
  const clean = (error: unknown): string =>
    redact(error instanceof Error ? error.message : String(error), secrets);

  let automation: Automation;
  try {
    // Loaded here: `@pulumi/pulumi` is a peer dependency, needed by --stack alone.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    automation = require("@pulumi/pulumi/automation") as Automation;
  } catch {
    throw new CommandError(
      "--stack needs @pulumi/pulumi installed next to this package (npm install @pulumi/pulumi); the project was written, without a stack",
    );
  }
  let workspace: AutomationModule.LocalWorkspace;
  try {
    workspace = await automation.LocalWorkspace.create({ workDir: request.workDir });
  } catch (error) {
    throw new CommandError(`--stack needs the Pulumi CLI on PATH: ${clean(error)}`);
  }
  const existing = (await workspace.listStacks().catch(() => [])).some((s) => s.name === request.stack);
  if (existing && !request.force) {
    throw new CommandError(
      `the stack ${request.stack} already exists in the current backend; choose another --stack, or pass --force to set its config`,
    );
  }
  try {
    if (existing) await workspace.selectStack(request.stack);
    else await workspace.createStack(request.stack);
  } catch (error) {
    throw new CommandError(`making the stack ${request.stack} failed: ${errorText(error, secrets)}`);
  }
  try {
    await workspace.setAllConfig(request.stack, request.config);
  } catch (error) {
    if (!existing) await workspace.removeStack(request.stack).catch(() => undefined);
    throw new CommandError(
      `setting the config of the stack ${request.stack} failed${existing ? "" : " (the stack was removed again)"}: ${errorText(error, secrets)}`,
    );
  }
}

/**
 * The CLI's own complaint on one line: its stderr (which the Automation API puts after a first line
 * quoting the command, dropped here), else the message; secrets blanked either way.
 */
export function errorText(error: unknown, secrets: readonly string[]): string {
  const stderr = (error as { commandResult?: { stderr?: unknown } }).commandResult?.stderr;
  const text =
    typeof stderr === "string" && stderr.trim() !== ""
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  const lines = text
    .split("\n")
    .map((line) => line.trim().replace(/^error: /, ""))
    .filter((line) => line !== "" && !line.startsWith("Command failed"));
  return redact(lines.join(" ") || text.trim(), secrets);
}

/** `text` with every secret value replaced by `[secret]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret !== "") out = out.split(secret).join("[secret]");
  }
  return out;
}
