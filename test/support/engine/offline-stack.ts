/**
 * A Pulumi stack of an inline program, run by the real engine offline: a local file backend in a
 * temporary folder, passphrase secrets, no update check, no plugin downloads. The
 * engine e2e tests' stacks.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

import * as automation from "@pulumi/pulumi/automation";

/** What {@link createOfflineStack} needs. */
interface OfflineStackOptions {
  /** The engine's bin folder (see `scripts/engine/engine.ts`). */
  binDir: string;
  /**
   * A folder inside the project, where the engine starts the dynamic-provider plugin: from there it
   * must resolve `@pulumi/pulumi` and this package. A fresh subfolder is made in it per stack.
   */
  workRoot: string;
  program: automation.PulumiFn;
  projectName: string;
  stackName?: string;
  /** Stack config; values given as `{ secret }` are set with `--secret`. */
  config?: Record<string, string | { secret: string }>;
  /** Extra environment for the engine and its plugins. */
  env?: Record<string, string>;
}

/** A stack and what it needs to be cleaned up. */
interface OfflineStack {
  stack: automation.Stack;
  /** The stack's state file as the backend stores it (secrets encrypted). */
  stateFile(): Promise<string>;
  /** Removes the work folder, the backend and the Pulumi home. */
  dispose(): Promise<void>;
}

/** The CLI of each bin folder, found once per test file (finding it runs `pulumi version`). */
const commands = new Map<string, Promise<automation.PulumiCommand>>();
function commandIn(binDir: string): Promise<automation.PulumiCommand> {
  let command = commands.get(binDir);
  if (command === undefined) {
    command = automation.PulumiCommand.get({ root: dirname(binDir) });
    commands.set(binDir, command);
  }
  return command;
}

/** Creates a stack whose engine runs offline. */
export async function createOfflineStack(options: OfflineStackOptions): Promise<OfflineStack> {
  const workDir = join(options.workRoot, randomUUID());
  await mkdir(workDir, { recursive: true });
  const home = await mkdtemp(join(tmpdir(), "notification-handlers-pulumi-"));
  const backend = join(home, "state");
  await mkdir(backend);
  const stackName = options.stackName ?? "dev";
  const env: Record<string, string> = {
    // The engine finds the dynamic-provider plugin next to `pulumi`; the plugin runs `node` from PATH.
    PATH: [options.binDir, dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "offline-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    ...options.env,
  };
  const pulumiCommand = await commandIn(options.binDir);
  // A new backend each time: the stack is made, never looked for first (one CLI call, not two).
  const stack = await automation.LocalWorkspace.createStack(
    { stackName, projectName: options.projectName, program: options.program },
    {
      workDir,
      pulumiHome: home,
      pulumiCommand,
      envVars: env,
      projectSettings: {
        name: options.projectName,
        runtime: "nodejs",
        backend: { url: `file://${backend}` },
      },
    },
  );
  const config: automation.ConfigMap = {};
  for (const [key, value] of Object.entries(options.config ?? {}))
    config[key] = typeof value === "string" ? { value } : { value: value.secret, secret: true };
  if (Object.keys(config).length > 0) await stack.setAllConfig(config); // one CLI call
  return {
    stack,
    stateFile: () =>
      readFile(join(backend, ".pulumi", "stacks", options.projectName, `${stackName}.json`), "utf8"),
    async dispose() {
      await rm(workDir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}
