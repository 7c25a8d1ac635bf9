/**
 * How the language host runs a Pulumi program: `node` on the program's own
 * `@pulumi/pulumi/cmd/run`, with the engine's run flags, and the stack's config in the environment.
 * The outcome is reported the way the engine reads it (see docs/engine.md#the-language-host).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** What the engine asked to run, as plain values. */
export interface RunSpec {
  project: string;
  stack: string;
  organization: string;
  /** The folder the program runs in (Pulumi.yaml's folder, or its `main`). */
  programDirectory: string;
  rootDirectory: string;
  /** "." for the package's `main`, else a path relative to the program folder. */
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
type RunOutcome = { kind: "ok" } | { kind: "bail" } | { kind: "error"; message: string };

/**
 * The folder, inside NODE_COMPILE_CACHE, of the programs' compile cache. A program turns on a V8 flag
 * (@pulumi/pulumi's closure serialization), and a process without it refuses the code a program
 * caches: apart, the dynamic-provider processes do not compile everything again after each program.
 */
const PROGRAM_COMPILE_CACHE = "programs";

/** The exit code with which `cmd/run` says it has already shown the user the program's error. */
const BAIL_EXIT_CODE = 32;

/** `@pulumi/pulumi/cmd/run` as installed for the program: the nearest node_modules above its folder. */
function findRunScript(programDirectory: string): string | undefined {
  for (let dir = resolve(programDirectory); ; dir = dirname(dir)) {
    const script = join(dir, "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js");
    if (existsSync(script)) return dirname(script);
    if (dirname(dir) === dir) return undefined;
  }
}

/** The engine's `ns:key` config keys as the Node.js SDK reads them from `PULUMI_CONFIG`: `ns:config:key`. */
function configForEnvironment(config: Record<string, string>): string {
  const written: Record<string, string> = {};
  for (const [key, value] of Object.entries(config)) {
    const colon = key.indexOf(":");
    written[colon < 0 ? key : `${key.slice(0, colon)}:config:${key.slice(colon + 1)}`] = value;
  }
  return JSON.stringify(written);
}

/** The `node` command line and environment that run the program. */
function programCommand(
  spec: RunSpec,
  runScript: string,
  environment: NodeJS.ProcessEnv,
): { args: string[]; env: NodeJS.ProcessEnv } {
  const flag = (name: string, value: string): string[] => (value === "" ? [] : [`--${name}`, value]);
  const nodeArgs = typeof spec.options.nodeargs === "string" ? spec.options.nodeargs.split(/\s+/) : [];
  const args = [
    ...nodeArgs.filter((a) => a !== ""),
    runScript,
    ...flag("monitor", spec.monitorAddress),
    ...flag("engine", spec.engineAddress),
    ...flag("organization", spec.organization),
    ...flag("project", spec.project),
    ...flag("stack", spec.stack),
    ...flag("root-directory", spec.rootDirectory),
    ...flag("pwd", spec.programDirectory),
    ...flag("tracing", spec.tracing),
    ...(spec.dryRun ? ["--dry-run"] : []),
    ...flag("parallel", spec.parallel > 0 ? String(spec.parallel) : ""),
    spec.entryPoint === "" ? "." : spec.entryPoint,
    ...spec.args,
  ];
  const env: NodeJS.ProcessEnv = {
    ...environment,
    PULUMI_CONFIG: configForEnvironment(spec.config),
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(spec.secretKeys),
    PULUMI_NODEJS_TYPESCRIPT: spec.options.typescript === false ? "false" : "true",
  };
  if (typeof spec.options.tsconfig === "string") env.PULUMI_NODEJS_TSCONFIG_PATH = spec.options.tsconfig;
  if (environment.NODE_COMPILE_CACHE)
    env.NODE_COMPILE_CACHE = join(environment.NODE_COMPILE_CACHE, PROGRAM_COMPILE_CACHE);
  return { args, env };
}

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
 * Runs the program to its end. Its output goes to the host's own stdout and stderr, which the engine
 * shows the user.
 */
export function runProgram(spec: RunSpec, node: string): Promise<RunOutcome> {
  const runScript = findRunScript(spec.programDirectory);
  if (runScript === undefined) {
    return Promise.resolve({
      kind: "error",
      message:
        `@pulumi/pulumi is not installed for the program in ${spec.programDirectory}: ` +
        "run `npm install` in the project folder first",
    });
  }
  const { args, env } = programCommand(spec, runScript, process.env);
  return new Promise((resolveRun) => {
    const child = spawn(node, args, {
      cwd: spec.programDirectory,
      env,
      stdio: ["ignore", "inherit", "inherit"],
    });
    running.add(child);
    child.on("error", (error) => {
      running.delete(child);
      resolveRun({ kind: "error", message: `could not start ${node}: ${error.message}` });
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
