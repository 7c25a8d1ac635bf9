/**
 * How the language host runs a Python program: the program's Python (Pulumi.yaml's
 * `runtime.options.virtualenv`, else `python3` on PATH) on the repository's `python-runner.py`, with
 * the engine's run flags and the stack's config in the environment (see
 * docs/engine.md#the-language-host). The `pulumi` wheel does not carry a script that runs programs.
 */
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { promisify } from "node:util";

import { REPOSITORY_ROOT } from "../../support/user-project";
import {
  runFlags,
  runProgramProcess,
  type InstallCommand,
  type InstallSpec,
  type LanguageRunner,
  type RunOutcome,
  type RunSpec,
} from "./runner";

/** The runner that configures the Python SDK and runs the program inside its stack. */
const PYTHON_RUNNER = join(REPOSITORY_ROOT, "scripts", "engine", "language-host", "python-runner.py");

/** The Python that runs programs of projects with no virtualenv option. */
const DEFAULT_PYTHON = "python3";

/**
 * The virtual environment Pulumi.yaml's `virtualenv` names (relative to Pulumi.yaml's folder, else the
 * program's), its commands' folder and its Python.
 */
function virtualenvPaths(
  spec: InstallSpec,
  virtualenv: string,
): { venv: string; bin: string; python: string } {
  const venv = resolve(spec.rootDirectory || spec.programDirectory, virtualenv);
  const bin = join(venv, process.platform === "win32" ? "Scripts" : "bin");
  return { venv, bin, python: join(bin, process.platform === "win32" ? "python.exe" : "python") };
}

/** The Python to run the program with, and the environment that goes with it; or what is wrong. */
function pythonFor(spec: RunSpec): { python: string; env: NodeJS.ProcessEnv } | { error: string } {
  const { virtualenv, toolchain } = spec.options;
  if (toolchain !== undefined && toolchain !== "pip")
    return {
      error: `runtime.options.toolchain: the project's own Python host runs pip virtual environments only, not ${JSON.stringify(toolchain)}`,
    };
  if (virtualenv === undefined) return { python: DEFAULT_PYTHON, env: {} };
  if (typeof virtualenv !== "string" || virtualenv === "")
    return { error: "runtime.options.virtualenv: must be a folder path, relative to Pulumi.yaml" };
  const { venv, bin, python } = virtualenvPaths(spec, virtualenv);
  if (!existsSync(python))
    return {
      error:
        `runtime.options.virtualenv: ${venv} is not a virtual environment (no ${python}): ` +
        `create it with \`python3 -m venv ${virtualenv}\` and install the program's requirements in it`,
    };
  // As activating the environment would: its commands first, for what the program starts.
  return { python, env: { VIRTUAL_ENV: venv, PATH: [bin, process.env.PATH ?? ""].join(delimiter) } };
}

/** The program the runner runs: a folder with `__main__.py` for ".", else the file or folder named. */
function programPath(spec: RunSpec): string | { error: string } {
  const program = resolve(spec.programDirectory, spec.entryPoint === "" ? "." : spec.entryPoint);
  if (!existsSync(program)) return { error: `the program ${program} does not exist` };
  if (statSync(program).isDirectory() && !existsSync(join(program, "__main__.py")))
    return { error: `no __main__.py in ${program}: name the program's file in Pulumi.yaml's \`main\`` };
  return program;
}

/** The runner's command line after the Python executable. */
function runnerArguments(spec: RunSpec, program: string): string[] {
  return [
    "-u", // unbuffered: the program's output reaches the CLI as it comes
    PYTHON_RUNNER,
    ...runFlags(spec),
    program,
    ...spec.args,
  ];
}

/** Runs the program with its Python on the runner. */
function runProgram(spec: RunSpec): Promise<RunOutcome> {
  const found = pythonFor(spec);
  const program = programPath(spec);
  if ("error" in found) return Promise.resolve({ kind: "error", message: found.error });
  if (typeof program !== "string") return Promise.resolve({ kind: "error", message: program.error });
  return runProgramProcess(found.python, runnerArguments(spec, program), {
    cwd: spec.programDirectory,
    env: {
      ...process.env,
      ...found.env,
      // The Python SDK reads config keys as the engine writes them: `project:key`.
      PULUMI_CONFIG: JSON.stringify(spec.config),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(spec.secretKeys),
    },
  });
}

/**
 * What `pulumi install` and `pulumi new` run: the virtual environment Pulumi.yaml names made when it
 * is missing, then the requirements installed into it (into `python3`'s own without one). Pip is not
 * upgraded, as Pulumi's host does: the project's pins hold what the environment holds.
 */
function installCommands(spec: InstallSpec): InstallCommand[] {
  const { virtualenv } = spec.options;
  const requirements = existsSync(join(spec.programDirectory, "requirements.txt"))
    ? ["-m", "pip", "install", "-r", "requirements.txt"]
    : undefined;
  if (typeof virtualenv !== "string" || virtualenv === "")
    return requirements === undefined ? [] : [[DEFAULT_PYTHON, ...requirements]];
  const { venv, python } = virtualenvPaths(spec, virtualenv);
  return [
    ...(existsSync(python) ? [] : [[DEFAULT_PYTHON, "-m", "venv", venv] as InstallCommand]),
    ...(requirements === undefined ? [] : [[python, ...requirements] as InstallCommand]),
  ];
}

/** Python programs (`runtime: python`). */
export const pythonRunner: LanguageRunner = {
  language: "python",
  run: runProgram,
  install: installCommands,
  about: async () => {
    const { stdout } = await promisify(execFile)(DEFAULT_PYTHON, ["--version"]);
    return { name: DEFAULT_PYTHON, version: stdout.trim().replace(/^Python /, "") };
  },
};
