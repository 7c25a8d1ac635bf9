/**
 * `export --stack`: makes the stack in the logged-in Pulumi backend and sets its config through the
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
  /** The Pulumi project's name, for the command that removes a stack left behind. */
  project: string;
  stack: string;
  /** Set the config of a stack that already exists instead of refusing. */
  force: boolean;
  /** Full keys (`project:key`) to values. */
  config: Record<string, ConfigEntry>;
}

type Automation = typeof AutomationModule;

/** The part of the Automation API's `LocalWorkspace` that {@link configureStack} uses. */
export type StackWorkspace = Pick<
  AutomationModule.LocalWorkspace,
  "whoAmI" | "listStacks" | "createStack" | "selectStack" | "setAllConfig" | "removeStack"
>;

/**
 * Makes (or with `force`, selects) the stack and sets every config value; on failure removes a stack
 * it made. Needs a backend logged in, and says so first when there is none. `open` gives the
 * workspace of the project folder (tests pass their own).
 */
export async function configureStack(
  request: StackConfigRequest,
  open: (workDir: string, secrets: readonly string[]) => Promise<StackWorkspace> = openWorkspace,
): Promise<void> {
  const secrets = Object.values(request.config)
    .filter((entry) => entry.secret)
    .map((entry) => entry.value);
  const workspace = await open(request.workDir, secrets);
  // Asked first, so that a CLI logged in to no backend is reported as that, with the way out, and not
  // as a failed `stack init`.
  try {
    await workspace.whoAmI();
  } catch (error) {
    throw new CommandError(
      `--stack needs a Pulumi backend to make the stack in, and \`pulumi whoami\` names none (${errorText(error, secrets)}): ` +
        "log in with `pulumi login` (or `pulumi login file://FOLDER` for state in a folder), then run the export again",
    );
  }
  const existing = (await workspace.listStacks().catch(() => [])).some((s) => s.name === request.stack);
  if (existing && !request.force) {
    throw new CommandError(
      `the stack ${request.stack} already exists in the current backend; choose another --stack, or pass --force to set its config`,
    );
  }
  /** `failed`, once the stack this call made is removed again; or how to remove it when that fails. */
  const removingMade = async (failed: string): Promise<CommandError> => {
    try {
      await workspace.removeStack(request.stack);
    } catch (error) {
      // Outside the project's folder, which the export puts back as it was, the stack needs its full name.
      const name = request.stack.includes("/") ? request.stack : `ORG/${request.project}/${request.stack}`;
      return new CommandError(
        `${failed}; removing the stack again failed too (${errorText(error, secrets)}): remove it with \`pulumi stack rm ${name}\` (ORG is \`organization\` in a file backend)`,
      );
    }
    return new CommandError(`${failed} (the stack was removed again)`);
  };
  try {
    if (existing) await workspace.selectStack(request.stack);
    else await workspace.createStack(request.stack);
  } catch (error) {
    const failed = `making the stack ${request.stack} failed: ${errorText(error, secrets)}`;
    // The CLI may have made it in the backend before failing on the folder's side (its config file).
    const made =
      !existing && (await workspace.listStacks().catch(() => [])).some((s) => s.name === request.stack);
    throw made ? await removingMade(failed) : new CommandError(failed);
  }
  try {
    await workspace.setAllConfig(request.stack, request.config);
  } catch (error) {
    const failed = `setting the config of the stack ${request.stack} failed: ${errorText(error, secrets)}`;
    throw existing ? new CommandError(failed) : await removingMade(failed);
  }
}

/** The Automation API's workspace of the project folder, loaded only now. */
async function openWorkspace(workDir: string, secrets: readonly string[]): Promise<StackWorkspace> {
  let automation: Automation;
  try {
    // Loaded here: `@pulumi/pulumi` is a peer dependency, needed by --stack alone.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    automation = require("@pulumi/pulumi/automation") as Automation;
  } catch {
    throw new CommandError(
      "--stack needs @pulumi/pulumi installed next to this package (npm install @pulumi/pulumi), or leave --stack out",
    );
  }
  try {
    return await automation.LocalWorkspace.create({ workDir });
  } catch (error) {
    throw new CommandError(
      `--stack needs the Pulumi CLI on PATH: ${redact(error instanceof Error ? error.message : String(error), secrets)}`,
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
