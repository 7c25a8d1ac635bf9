/**
 * How the language host runs a Go program: `go build` in the program folder, into a folder of the
 * user's cache, then the binary with the `PULUMI_*` environment the Go SDK reads (see
 * docs/engine.md#the-language-host).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

import { projectCache } from "../../support/project-cache";
import { runProgramProcess, type LanguageRunner, type RunOutcome, type RunSpec } from "./runner";

/** Where a program's binary is built: one folder per program, so `go build` relinks only what changed. */
function binaryPath(spec: RunSpec): string {
  const program = resolve(spec.programDirectory, spec.entryPoint);
  const key = createHash("sha256").update(program).digest("hex").slice(0, 16);
  return join(projectCache("go-programs"), key, spec.project || "program");
}

/** The environment the Go SDK's `pulumi.Run` reads the engine's run from. */
function programEnvironment(spec: RunSpec): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PULUMI_MONITOR: spec.monitorAddress,
    PULUMI_ENGINE: spec.engineAddress,
    PULUMI_PROJECT: spec.project,
    PULUMI_STACK: spec.stack,
    PULUMI_ORGANIZATION: spec.organization,
    PULUMI_ROOT_DIRECTORY: spec.rootDirectory,
    // The Go SDK reads config keys as the engine writes them: `project:key`.
    PULUMI_CONFIG: JSON.stringify(spec.config),
    PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(spec.secretKeys),
    PULUMI_DRY_RUN: String(spec.dryRun),
    PULUMI_PARALLEL: String(spec.parallel),
  };
}

/** Builds the program; the compiler's output is the error when it fails. */
async function build(spec: RunSpec, binary: string): Promise<{ error: string } | undefined> {
  await mkdir(join(binary, ".."), { recursive: true });
  const entry = spec.entryPoint === "" || spec.entryPoint === "." ? "." : `./${spec.entryPoint}`;
  try {
    await promisify(execFile)("go", ["build", "-o", binary, entry], {
      cwd: spec.programDirectory,
      maxBuffer: 16 * 1024 * 1024, // 16 MiB: a build's messages are short, but may be many
    });
    return undefined;
  } catch (error) {
    const {
      code,
      stdout = "",
      stderr = "",
      message,
    } = error as NodeJS.ErrnoException & {
      stdout?: string;
      stderr?: string;
    };
    if (code === "ENOENT")
      return { error: "go is not on PATH: install Go (https://go.dev/dl/) to run Go programs" };
    const output = `${stdout}${stderr}`.trim() || message;
    return { error: `go build in ${spec.programDirectory} failed:\n${output}` };
  }
}

/** Builds the program, then runs its binary in the program folder. */
async function runProgram(spec: RunSpec): Promise<RunOutcome> {
  const binary = binaryPath(spec);
  const failed = await build(spec, binary);
  if (failed !== undefined) return { kind: "error", message: failed.error };
  return runProgramProcess(binary, spec.args, { cwd: spec.programDirectory, env: programEnvironment(spec) });
}

/** Go programs (`runtime: go`). */
export const goRunner: LanguageRunner = {
  language: "go",
  run: runProgram,
  about: async () => {
    const { stdout } = await promisify(execFile)("go", ["env", "GOVERSION"]);
    return { name: "go", version: stdout.trim().replace(/^go/, "") };
  },
  // As Pulumi's own Go host: go.mod's requirements downloaded and go.sum completed.
  install: () => [["go", "mod", "tidy"]],
};
