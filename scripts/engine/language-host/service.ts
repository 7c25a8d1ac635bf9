/**
 * The `pulumirpc.LanguageRuntime` methods that `pulumi up`, `preview`, `about` and `install` call,
 * the same for every language: a {@link LanguageRunner} does what differs. Methods left out answer
 * UNIMPLEMENTED, which the engine accepts for all of them.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { ILanguageRuntimeServer } from "@pulumi/pulumi/proto/language_grpc_pb";
import * as language from "@pulumi/pulumi/proto/language_pb";
import * as plugin from "@pulumi/pulumi/proto/plugin_pb";

import { REPOSITORY_ROOT } from "../../support/user-project";
import { stopPrograms, type InstallSpec, type LanguageRunner, type RunSpec } from "./runner";

/** The host's version, which `pulumi about` shows: the repository's package version. */
const HOST_VERSION = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as { version: string }
).version;

type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>;

/** Wraps a method so that a throw or a rejection becomes the call's error rather than a crash. */
function unary<Req, Res>(method: (request: Req) => Res | Promise<Res>): Unary<Req, Res> {
  return (call, callback) => {
    Promise.resolve(call.request)
      .then(method)
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback({ code: grpc.status.INTERNAL, details: String(error) }),
      );
  };
}

/**
 * Where the program is, as the engine's program info says (its program folder, else `directory`), and
 * Pulumi.yaml's folder (empty when the info gives none) and runtime options.
 */
function programPlace(info: language.ProgramInfo | undefined, directory: string): InstallSpec {
  return {
    programDirectory: info?.getProgramDirectory() || directory,
    rootDirectory: info?.getRootDirectory() ?? "",
    options: info?.getOptions()?.toJavaScript() ?? {},
  };
}

function runSpec(request: language.RunRequest, engineAddress: string): RunSpec {
  const info = request.getInfo();
  const config: Record<string, string> = {};
  request.getConfigMap().forEach((value, key) => (config[key] = value));
  return {
    project: request.getProject(),
    stack: request.getStack(),
    organization: request.getOrganization(),
    ...programPlace(info, request.getPwd()),
    entryPoint: info?.getEntryPoint() || request.getProgram(),
    args: request.getArgsList(),
    config,
    secretKeys: request.getConfigsecretkeysList(),
    dryRun: request.getDryrun(),
    parallel: request.getParallel(),
    monitorAddress: request.getMonitorAddress(),
    engineAddress,
    tracing: "",
  };
}

/** The service for `runner`'s language, for the engine at `engineAddress`. */
export function languageRuntime(
  runner: LanguageRunner,
  engineAddress: string,
  tracing: string,
): grpc.UntypedServiceImplementation {
  const methods: Partial<ILanguageRuntimeServer> = {
    handshake: unary(() => new language.LanguageHandshakeResponse()),

    // Plugins are found by name (the dynamic provider's, the project's own); the programs need no other.
    getRequiredPackages: unary(() => new language.GetRequiredPackagesResponse()),
    getRequiredPlugins: unary(() => new language.GetRequiredPluginsResponse()),

    run: unary(async (request: language.RunRequest) => {
      const outcome = await runner.run({ ...runSpec(request, engineAddress), tracing });
      const response = new language.RunResponse();
      if (outcome.kind === "bail") response.setBail(true);
      if (outcome.kind === "error") response.setError(outcome.message);
      return response;
    }),

    getPluginInfo: unary(() => new plugin.PluginInfo().setVersion(HOST_VERSION)),

    about: unary(async () => {
      const { name, version } = await runner.about();
      return new language.AboutResponse().setExecutable(name).setVersion(version);
    }),

    getProgramDependencies: unary((request: language.GetProgramDependenciesRequest) => {
      const { programDirectory } = programPlace(request.getInfo(), request.getPwd());
      const dependencies = runner.dependencies?.(programDirectory) ?? [];
      return new language.GetProgramDependenciesResponse().setDependenciesList(
        dependencies.map(({ name, version }) =>
          new language.DependencyInfo().setName(name).setVersion(version),
        ),
      );
    }),

    cancel: unary(() => {
      stopPrograms();
      return new Empty();
    }),
  };
  if (runner.install !== undefined) methods.installDependencies = installDependencies(runner.install);
  if (runner.plugin !== undefined) methods.runPlugin = runPlugin(runner.plugin);
  return methods as grpc.UntypedServiceImplementation;
}

/** Where a child's output goes: a chunk and the stream it came on. */
type OutputSink = (chunk: Buffer, stream: "stdout" | "stderr") => void;

/** Runs a command to its end, its output handed to `write` as it comes; resolves with its exit code. */
function streamProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal },
  write: OutputSink,
): Promise<number | null> {
  return new Promise((resolveCode, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => write(chunk, "stdout"));
    child.stderr.on("data", (chunk: Buffer) => write(chunk, "stderr"));
    child.on("error", reject);
    child.on("close", resolveCode);
  });
}

/** Ends a streaming call with `error` as a gRPC error. */
function failStream(
  call: grpc.ServerWritableStream<unknown, unknown>,
  error: unknown,
  code: grpc.status,
): void {
  call.destroy(Object.assign(error instanceof Error ? error : new Error(String(error)), { code }));
}

/** `pulumi install` and `pulumi new`: the runner's commands in the program's folder, their output streamed back. */
function installDependencies(
  commands: NonNullable<LanguageRunner["install"]>,
): NonNullable<ILanguageRuntimeServer["installDependencies"]> {
  return (call) => {
    const spec = programPlace(call.request.getInfo(), call.request.getDirectory());
    const write: OutputSink = (chunk, stream) => {
      const response = new language.InstallDependenciesResponse();
      call.write(stream === "stdout" ? response.setStdout(chunk) : response.setStderr(chunk));
    };
    const runAll = async (): Promise<void> => {
      for (const [command, ...args] of commands(spec)) {
        const code = await streamProcess(command, args, { cwd: spec.programDirectory }, write);
        if (code !== 0) throw new Error(`${[command, ...args].join(" ")} exited with ${code}`);
      }
    };
    runAll().then(
      () => call.end(),
      (error: unknown) => failStream(call, error, grpc.status.UNKNOWN),
    );
  };
}

/**
 * A plugin written in the language (a policy pack, which `--policy-pack` names): its process's output
 * streamed back as it comes, the engine reading the port from its first line, then its exit code.
 */
function runPlugin(
  command: NonNullable<LanguageRunner["plugin"]>,
): NonNullable<ILanguageRuntimeServer["runPlugin"]> {
  return (call) => {
    const request = call.request;
    const started = command({
      programDirectory: programPlace(request.getInfo(), request.getPwd()).programDirectory,
      kind: request.getKind(),
      args: request.getArgsList(),
      env: request.getEnvList(),
    });
    const write: OutputSink = (chunk, stream) => {
      const response = new language.RunPluginResponse();
      call.write(stream === "stdout" ? response.setStdout(chunk) : response.setStderr(chunk));
    };
    const exit = (code: number): void => {
      call.write(new language.RunPluginResponse().setExitcode(code));
      call.end();
    };
    // Told as a plugin that could not start (its message, exit code 1): the CLI waits on a call that
    // fails instead.
    const couldNotStart = (message: string): void => {
      write(Buffer.from(`${message}\n`), "stderr");
      exit(1);
    };
    if ("error" in started) {
      couldNotStart(started.error);
      return;
    }
    // The engine ends the plugin by cancelling the call. A host that exits (its engine gone, main.ts)
    // stops the plugin too: a policy pack serves until it is killed, and would outlive both.
    const stop = new AbortController();
    const stopPlugin = (): void => stop.abort();
    call.on("cancelled", stopPlugin);
    process.once("exit", stopPlugin);
    streamProcess(started.command, started.args, { ...started, signal: stop.signal }, write)
      .finally(() => process.off("exit", stopPlugin))
      .then(
        (code) => exit(code ?? 1),
        (error: unknown) => {
          if (!stop.signal.aborted)
            couldNotStart(`could not start ${started.command}: ${(error as Error).message}`);
        },
      );
  };
}
