/**
 * Pulumi stacks driven by the real engine offline, as the e2e tests make them: stacks of inline
 * programs through the Automation API (`createStack`, `stackForTest`) on a reference server in this
 * process, so requests can be counted at the server (`useTarget`, and the servers of the matrix);
 * and the environment of the Pulumi CLI in a project folder with a backend of its own
 * (`fileBackendEnvironment`, `extractPlugin`, and both together in `pluginProjectForTest`).
 *
 * Programs run inline (`pulumi up --client`), so the engine needs no Node.js language host; the
 * provider and the examples are loaded from the compiled package by plain `require`, so the provider
 * closure that Pulumi serializes is the package's own code.
 */
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

import type * as automation from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, inject, onTestFinished } from "vitest";

import { parseExportedState, type StateResource } from "../../../cli/state-json";
import type * as PackageModule from "../../../index";
import { pluginTarball } from "../../../scripts/release/build-plugin";
import {
  type CommandResult,
  mustRun,
  runCommand,
  scratchFolder,
  userEnvironment,
} from "../../../scripts/support/user-project";
import { createOfflineStack } from "./offline-stack";
import type { EmulatedVersion } from "../../../server";
import { type StartServerOptions, type TestServer, startServer } from "../servers/reference-server";

export {
  type Served,
  type StartServerOptions,
  type TestServer,
  serverForTest,
  startServer,
} from "../servers/reference-server";

export const ROOT = resolve(__dirname, "..", "..", "..");

/** The resources of a state as `pulumi stack export` printed it. */
export function exportedResources(exported: string): StateResource[] {
  return parseExportedState(exported, "pulumi stack export").deployment.resources ?? [];
}

/** Extracts the plugin's executable from its tarball into `project/plugin-bin`, where programs' `plugins.providers` point. */
export async function extractPlugin(project: string, env: NodeJS.ProcessEnv): Promise<void> {
  await mkdir(join(project, "plugin-bin"), { recursive: true });
  await mustRun("tar", ["-xzf", pluginTarball(), "-C", join(project, "plugin-bin")], { cwd: project, env });
}

/**
 * The environment of the Pulumi CLI run in a scratch folder `root`: a home and a file backend of its
 * own there (the backend's folder made), the engine first on PATH, and `passphrase` for secrets.
 */
export async function fileBackendEnvironment(
  root: string,
  passphrase: string,
  extra: NodeJS.ProcessEnv = {},
): Promise<NodeJS.ProcessEnv> {
  await mkdir(join(root, "state"), { recursive: true });
  return userEnvironment({
    home: join(root, "home"),
    pathFirst: inject("enginePath"),
    extra: {
      PULUMI_HOME: join(root, "home", ".pulumi"),
      PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: passphrase,
      ...extra,
    },
  });
}

/** A project the Pulumi CLI runs through the plugin's executable (see {@link pluginProjectForTest}). */
export interface PluginProject {
  folder: string;
  /** `pulumi <args>` on the project, run from the folder above it (`--cwd`). */
  pulumi: (...args: string[]) => Promise<CommandResult>;
  /** Like `pulumi`; a failing command is an error carrying the end of its output. */
  mustPulumi: (...args: string[]) => Promise<CommandResult>;
}

/**
 * A project for the running test, in a scratch folder removed when the test ends: a copy of the
 * folder `files.copy`, or `files.program` as its Pulumi.yaml; the plugin's executable extracted into
 * it; a file backend of its own; and a stack `test` with `config` (a value given as `{ secret }` set
 * as a secret). The CLI runs from the folder above, so nothing the program reads depends on where it
 * was started.
 */
export async function pluginProjectForTest(
  files: { copy: string } | { program: string },
  config: Record<string, string | { secret: string }>,
): Promise<PluginProject> {
  const root = await scratchFolder("plugin-project");
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const folder = join(root, "project");
  if ("copy" in files) await cp(files.copy, folder, { recursive: true });
  const env = await fileBackendEnvironment(root, "local-only");
  await extractPlugin(folder, env);
  if ("program" in files) await writeFile(join(folder, "Pulumi.yaml"), files.program);
  const options = { cwd: root, env };
  const project: PluginProject = {
    folder,
    pulumi: (...args) => runCommand("pulumi", ["--cwd", folder, ...args], options),
    mustPulumi: (...args) => mustRun("pulumi", ["--cwd", folder, ...args], options),
  };
  await project.mustPulumi("stack", "init", "test");
  for (const [name, value] of Object.entries(config)) {
    if (typeof value === "string") await project.mustPulumi("config", "set", name, value);
    else await project.mustPulumi("config", "set", "--secret", name, value.secret);
  }
  return project;
}

/** `require` from the repository root, outside the test runner's transform. */
export const nativeRequire = createRequire(join(ROOT, "package.json"));

/** The compiled package, loaded natively (not through the test runner's transform). */
export type Package = typeof PackageModule;
export const pkg = (): Package => nativeRequire("pulumi-notification-handlers") as Package;

/** A stack of an inline program, with its own state backend and work folder. */
export interface TestStack {
  stack: automation.Stack;
  /** Everything the engine printed, per operation. */
  output: string[];
  up(options?: automation.UpOptions): Promise<automation.UpResult>;
  preview(): Promise<automation.PreviewResult>;
  refresh(): Promise<automation.RefreshResult>;
  destroy(): Promise<automation.DestroyResult>;
  /** The stack's state file as the backend stores it (secrets encrypted). */
  exportState(): Promise<string>;
  dispose(): Promise<void>;
}

/** Options of {@link createStack}. */
export interface CreateStackOptions {
  program: automation.PulumiFn;
  projectName?: string;
  /** Stack config; values given as `{ secret }` are set with `--secret`. */
  config?: Record<string, string | { secret: string }>;
  /** Extra environment for the engine and the provider (none of the caller's NOTIFICATION_HANDLERS_*). */
  env?: Record<string, string>;
  /** How many resource operations each run has in flight at once; the engine's default (4 per core) when absent. */
  parallel?: number;
}

/** Creates a stack whose engine runs offline (see offline-stack.ts). */
export async function createStack(options: CreateStackOptions): Promise<TestStack> {
  const offline = await createOfflineStack({
    binDir: inject("engineBinDir"),
    workRoot: join(ROOT, ".e2e-work"),
    program: options.program,
    projectName: options.projectName ?? "e2e",
    stackName: "test",
    ...(options.config === undefined ? {} : { config: options.config }),
    // None of the caller's NOTIFICATION_HANDLERS_* reaches the provider unless a test sets it.
    env: { NOTIFICATION_HANDLERS_BASE_URL: "", NOTIFICATION_HANDLERS_API_KEY: "", ...options.env },
  });
  const output: string[] = [];
  const capture = (): { onOutput: (s: string) => void; parallel?: number } => {
    output.push("");
    return {
      onOutput: (s: string) => {
        output[output.length - 1] += s;
      },
      ...(options.parallel === undefined ? {} : { parallel: options.parallel }),
    };
  };
  const { stack } = offline;
  return {
    stack,
    output,
    up: (options = {}) => stack.up({ ...options, ...capture() }),
    preview: () => stack.preview(capture()),
    refresh: () => stack.refresh(capture()),
    destroy: () => stack.destroy(capture()),
    exportState: () => offline.stateFile(),
    dispose: () => offline.dispose(),
  };
}

/** A stack (see {@link createStack}) for the running test, disposed when the test ends. */
export async function stackForTest(options: CreateStackOptions): Promise<TestStack> {
  const stack = await createStack(options);
  onTestFinished(() => stack.dispose());
  return stack;
}

/** Provider config for a server and key, and the update strategy when one is given. */
export function providerConfig(
  url: string,
  apiKey: string,
  updateStrategy?: "in-place" | "replace",
): Record<string, string | { secret: string }> {
  return {
    "notification-handlers:baseUrl": url,
    "notification-handlers:apiKey": { secret: apiKey },
    ...(updateStrategy === undefined ? {} : { "notification-handlers:updateStrategy": updateStrategy }),
  };
}

/** A server the provider scenarios run against, and the update strategy it needs. */
export interface Target {
  name: string;
  emulate?: EmulatedVersion;
  strategy: "in-place" | "replace";
}

/** The reference server: every engine scenario runs against it. */
export const REFERENCE: Target = { name: "the reference server", strategy: "in-place" };
/**
 * Deployed versions, each only for the scenarios where it behaves differently: both have defective
 * updates and need the replace strategy (2026 wipes type and settings, 2025 saves nothing); 2025 also
 * ignores every list filter, which adoption by name must cope with.
 */
export const EMULATED_2026: Target = {
  name: "an emulated 2026 instance",
  emulate: "2026",
  strategy: "replace",
};
export const EMULATED_2025: Target = {
  name: "an emulated 2025 instance",
  emulate: "2025",
  strategy: "replace",
};

/** A server of the matrix for the enclosing `describe`, and stacks on it; all closed after its tests. */
export interface TargetContext {
  readonly server: TestServer;
  /** A stack of `program` with the provider pointed at the server with `key`, in the target's strategy. */
  stack(key: string, program: () => Promise<Record<string, unknown>>): Promise<TestStack>;
}

/** Starts the target's server before the enclosing block's tests and closes it after them. */
export function useTarget(target: Target, options: Omit<StartServerOptions, "emulate"> = {}): TargetContext {
  let server: TestServer | undefined;
  const stacks: TestStack[] = [];
  beforeAll(async () => {
    server = await startServer({
      ...options,
      ...(target.emulate === undefined ? {} : { emulate: target.emulate }),
    });
  });
  afterAll(async () => {
    for (const s of stacks) await s.dispose();
    await server?.close();
  });
  return {
    get server(): TestServer {
      if (server === undefined) throw new Error("the server starts in beforeAll");
      return server;
    },
    async stack(key, program) {
      const s = await createStack({ program, config: providerConfig(this.server.url, key, target.strategy) });
      stacks.push(s);
      return s;
    },
  };
}
