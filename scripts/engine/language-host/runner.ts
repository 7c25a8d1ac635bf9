/**
 * What the language host shares between languages: the run the engine asks for as plain values, the
 * outcome it is told, and the program's process, whose exit code says which outcome it was (see
 * docs/engine.md#the-language-host).
 */
import { spawn } from "node:child_process";

/** What the engine asked to run, as plain values. */
export interface RunSpec {
  project: string;
  stack: string;
  organization: string;
  /** The folder the program runs in (Pulumi.yaml's folder, or its `main`). */
  programDirectory: string;
  /** Pulumi.yaml's folder; empty when the engine gives none. */
  rootDirectory: string;
  /** "." for the language's default entry point, else a path relative to the program folder. */
  entryPoint: string;
  args: string[];
  /** `project:key` to value, as the stack's config holds it (secrets decrypted). */
  config: Record<string, string>;
  secretKeys: string[];
  dryRun: boolean;
  parallel: number;
  monitorAddress: string;
  engineAddress: string;
  tracing: string;
  /** Pulumi.yaml's `runtime.options`. */
  options: Record<string, unknown>;
}

/** A program's end, as the engine's `RunResponse` carries it. */
/**
 * The engine's run flags as the program runners take them (Node.js's `cmd/run`, the Python runner):
 * `--monitor`, `--engine`, `--organization`, `--project`, `--stack`, `--root-directory`, `--pwd`,
 * `--dry-run`, `--parallel`, each left out when empty.
 */
export function runFlags(spec: RunSpec): string[] {
  const flag = (name: string, value: string): string[] => (value === "" ? [] : [`--${name}`, value]);
  return [
    ...flag("monitor", spec.monitorAddress),
    ...flag("engine", spec.engineAddress),
    ...flag("organization", spec.organization),
    ...flag("project", spec.project),
    ...flag("stack", spec.stack),
    ...flag("root-directory", spec.rootDirectory),
    ...flag("pwd", spec.programDirectory),
    ...(spec.dryRun ? ["--dry-run"] : []),
    ...flag("parallel", spec.parallel > 0 ? String(spec.parallel) : ""),
  ];
}

export type RunOutcome = { kind: "ok" } | { kind: "bail" } | { kind: "error"; message: string };

/** A direct dependency of a program, as `pulumi about` lists it. */
export interface Dependency {
  name: string;
  version: string;
}

/** How one language's programs are run; the host's gRPC service is the same for every language. */
export interface LanguageRunner {
  /** The runtime's name in Pulumi.yaml, which the host's command is named after. */
  language: string;
  /** Runs the program to its end. */
  run(spec: RunSpec): Promise<RunOutcome>;
  /** The executable that runs programs and its version, for `pulumi about`. */
  about(): Promise<Dependency>;
  /** The program's direct dependencies; none when the runner does not look. */
  dependencies?(directory: string): Dependency[];
  /**
   * The commands that `pulumi install` and `pulumi new` run in the program folder, one after another,
   * for a program with these `runtime.options`; UNIMPLEMENTED without the method.
   */
  install?: (spec: InstallSpec) => InstallCommand[];
  /**
   * The command that runs a plugin written in the language (a policy pack), from what the engine
   * asked; RunPlugin answers UNIMPLEMENTED without the method.
   */
  plugin?: (spec: PluginSpec) => PluginCommand;
}

/** What the engine asked to run as a plugin: a policy pack's folder, its kind, the arguments it gets. */
export interface PluginSpec {
  /** The plugin's folder (a policy pack's, where `PulumiPolicy.yaml` is). */
  programDirectory: string;
  /** `analyzer` for a policy pack. */
  kind: string;
  /** The arguments for the plugin: the engine's address. */
  args: string[];
  /** `KEY=VALUE` variables the engine adds to the plugin's environment. */
  env: string[];
}

/** How a plugin's process starts, or why it cannot. */
export type PluginCommand =
  { command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv } | { error: string };

/** What the engine asked to install for. */
export interface InstallSpec {
  programDirectory: string;
  /** Pulumi.yaml's folder; empty when the engine gives none. */
  rootDirectory: string;
  /** Pulumi.yaml's `runtime.options`. */
  options: Record<string, unknown>;
}

/** One command an install runs: the executable, then its arguments. */
export type InstallCommand = [string, ...string[]];

/** The exit code with which a program says it has already shown the user its error. */
const BAIL_EXIT_CODE = 32;

/** Maps how the program's process ended to what the engine is told. */
function outcomeOf(code: number | null, signal: NodeJS.Signals | null): RunOutcome {
  if (code === 0) return { kind: "ok" };
  if (code === BAIL_EXIT_CODE) return { kind: "bail" };
  if (code !== null) return { kind: "error", message: `Program exited with non-zero exit code: ${code}` };
  return { kind: "error", message: `Program was stopped by signal ${signal ?? "unknown"}` };
}

/** The programs running now, so that a cancel can stop them. */
const running = new Set<ReturnType<typeof spawn>>();

/**
 * Runs a program's process to its end. Its output goes to the host's own stdout and stderr, which
 * the engine shows the user.
 */
export function runProgramProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<RunOutcome> {
  return new Promise((resolveRun) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "inherit", "inherit"] });
    running.add(child);
    child.on("error", (error) => {
      running.delete(child);
      resolveRun({ kind: "error", message: `could not start ${command}: ${error.message}` });
    });
    child.on("exit", (code, signal) => {
      running.delete(child);
      resolveRun(outcomeOf(code, signal));
    });
  });
}

/** Stops every running program (the engine was cancelled). */
export function stopPrograms(): void {
  for (const child of running) child.kill("SIGTERM");
}
