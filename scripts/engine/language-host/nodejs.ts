/**
 * How the language host runs a Node.js program: `node` on the program's own `@pulumi/pulumi/cmd/run`,
 * with the engine's run flags, and the stack's config in the environment (see
 * docs/engine.md#the-language-host).
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

import {
  runProgramProcess,
  type Dependency,
  type LanguageRunner,
  type PluginCommand,
  type PluginSpec,
  runFlags,
  type RunOutcome,
  type RunSpec,
} from "./runner";

/**
 * The folder, inside NODE_COMPILE_CACHE, of the programs' compile cache. A program turns on a V8 flag
 * (@pulumi/pulumi's closure serialization), and a process without it refuses the code a program
 * caches: apart, the dynamic-provider processes do not compile everything again after each program.
 */
const PROGRAM_COMPILE_CACHE = "programs";

/**
 * `@pulumi/pulumi/cmd/<command>` (`run`, `run-policy-pack`) as installed for the program: the nearest
 * node_modules above its folder.
 */
function findPulumiCommand(programDirectory: string, command: string): string | undefined {
  for (let dir = resolve(programDirectory); ; dir = dirname(dir)) {
    const script = join(dir, "node_modules", "@pulumi", "pulumi", "cmd", command, "index.js");
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
  const nodeArgs = typeof spec.options.nodeargs === "string" ? spec.options.nodeargs.split(/\s+/) : [];
  const args = [
    ...nodeArgs.filter((a) => a !== ""),
    runScript,
    ...runFlags(spec),
    ...(spec.tracing === "" ? [] : ["--tracing", spec.tracing]),
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

/** Runs the program with `node` on its own `@pulumi/pulumi/cmd/run`. */
function runProgram(spec: RunSpec): Promise<RunOutcome> {
  const runScript = findPulumiCommand(spec.programDirectory, "run");
  if (runScript === undefined) {
    return Promise.resolve({
      kind: "error",
      message:
        `@pulumi/pulumi is not installed for the program in ${spec.programDirectory}: ` +
        "run `npm install` in the project folder first",
    });
  }
  const { args, env } = programCommand(spec, runScript, process.env);
  return runProgramProcess("node", args, { cwd: spec.programDirectory, env });
}

/**
 * A policy pack (kind `analyzer`): `node` on the pack's own `@pulumi/pulumi/cmd/run-policy-pack`, with
 * the engine's address and the pack's folder, run in that folder (where its `tsconfig.json` is). The
 * pack's `@pulumi/policy` prints the port it serves the engine on.
 */
function policyPackCommand(spec: PluginSpec): PluginCommand {
  if (spec.kind !== "analyzer")
    return { error: `the Node.js host runs policy packs only, not ${spec.kind} plugins` };
  const script = findPulumiCommand(spec.programDirectory, "run-policy-pack");
  if (script === undefined) {
    return {
      error:
        `@pulumi/pulumi is not installed for the policy pack in ${spec.programDirectory}: ` +
        "run `npm install` in the pack's folder first",
    };
  }
  const added = Object.fromEntries(
    spec.env
      .filter((entry) => entry.includes("="))
      .map((entry) => {
        const equals = entry.indexOf("=");
        return [entry.slice(0, equals), entry.slice(equals + 1)];
      }),
  );
  return {
    command: "node",
    args: [script, ...spec.args, resolve(spec.programDirectory)],
    cwd: spec.programDirectory,
    env: { ...process.env, ...added },
  };
}

/** The program's direct dependencies with the versions installed for it. */
function programDependencies(directory: string): Dependency[] {
  const manifest = join(directory, "package.json");
  if (!existsSync(manifest)) return [];
  const { dependencies = {} } = JSON.parse(readFileSync(manifest, "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(dependencies).map((name) => {
    const installed = join(directory, "node_modules", name, "package.json");
    const version = existsSync(installed)
      ? (JSON.parse(readFileSync(installed, "utf8")) as { version: string }).version
      : (dependencies[name] ?? "");
    return { name, version };
  });
}

/** Node.js programs (`runtime: nodejs`). */
export const nodejsRunner: LanguageRunner = {
  language: "nodejs",
  run: runProgram,
  about: async () => {
    const { stdout } = await promisify(execFile)("node", ["--version"]);
    return { name: "node", version: stdout.trim().replace(/^v/, "") };
  },
  dependencies: programDependencies,
  install: () => [["npm", "install"]],
  plugin: policyPackCommand,
};
