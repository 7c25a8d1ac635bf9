/**
 * The `pulumirpc.LanguageRuntime` methods that `pulumi up`, `preview`, `about` and `install` call.
 * Methods left out answer UNIMPLEMENTED, which the engine accepts for all of them.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { ILanguageRuntimeServer } from "@pulumi/pulumi/proto/language_grpc_pb";
import * as language from "@pulumi/pulumi/proto/language_pb";
import * as plugin from "@pulumi/pulumi/proto/plugin_pb";

import { REPOSITORY_ROOT } from "../user-project";
import { runProgram, stopPrograms, type RunSpec } from "./program";

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

function runSpec(request: language.RunRequest, engineAddress: string): RunSpec {
  const info = request.getInfo();
  const config: Record<string, string> = {};
  request.getConfigMap().forEach((value, key) => (config[key] = value));
  return {
    project: request.getProject(),
    stack: request.getStack(),
    organization: request.getOrganization(),
    programDirectory: info?.getProgramDirectory() || request.getPwd(),
    rootDirectory: info?.getRootDirectory() ?? "",
    entryPoint: info?.getEntryPoint() || request.getProgram(),
    args: request.getArgsList(),
    config,
    secretKeys: request.getConfigsecretkeysList(),
    dryRun: request.getDryrun(),
    parallel: request.getParallel(),
    monitorAddress: request.getMonitorAddress(),
    engineAddress,
    tracing: "",
    options: info?.getOptions()?.toJavaScript() ?? {},
  };
}

/** The program's direct dependencies with the versions installed for it. */
function programDependencies(directory: string): language.DependencyInfo[] {
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
    return new language.DependencyInfo().setName(name).setVersion(version);
  });
}

/** The service, for the engine at `engineAddress`. */
export function languageRuntime(engineAddress: string, tracing: string): grpc.UntypedServiceImplementation {
  const methods: Partial<ILanguageRuntimeServer> = {
    handshake: unary(() => new language.LanguageHandshakeResponse()),

    // The dynamic provider's plugin is found by name; the programs here need no other.
    getRequiredPackages: unary(() => new language.GetRequiredPackagesResponse()),
    getRequiredPlugins: unary(() => new language.GetRequiredPluginsResponse()),

    run: unary(async (request: language.RunRequest) => {
      const outcome = await runProgram({ ...runSpec(request, engineAddress), tracing }, "node");
      const response = new language.RunResponse();
      if (outcome.kind === "bail") response.setBail(true);
      if (outcome.kind === "error") response.setError(outcome.message);
      return response;
    }),

    getPluginInfo: unary(() => new plugin.PluginInfo().setVersion(HOST_VERSION)),

    about: unary(async () => {
      const { stdout } = await promisify(execFile)("node", ["--version"]);
      return new language.AboutResponse().setExecutable("node").setVersion(stdout.trim().replace(/^v/, ""));
    }),

    getProgramDependencies: unary((request: language.GetProgramDependenciesRequest) => {
      const directory = request.getInfo()?.getProgramDirectory() || request.getPwd();
      return new language.GetProgramDependenciesResponse().setDependenciesList(
        programDependencies(directory),
      );
    }),

    // `pulumi install`: `npm install` in the program's folder, its output streamed back.
    installDependencies: (call) => {
      const directory = call.request.getInfo()?.getProgramDirectory() || call.request.getDirectory();
      const npm = spawn("npm", ["install"], { cwd: directory, stdio: ["ignore", "pipe", "pipe"] });
      npm.stdout.on("data", (chunk: Buffer) =>
        call.write(new language.InstallDependenciesResponse().setStdout(chunk)),
      );
      npm.stderr.on("data", (chunk: Buffer) =>
        call.write(new language.InstallDependenciesResponse().setStderr(chunk)),
      );
      npm.on("error", (error) => call.destroy(error));
      npm.on("close", (code) => {
        if (code === 0) call.end();
        else
          call.destroy(
            Object.assign(new Error(`npm install exited with ${code}`), { code: grpc.status.UNKNOWN }),
          );
      });
    },

    cancel: unary(() => {
      stopPrograms();
      return new Empty();
    }),
  };
  return methods as grpc.UntypedServiceImplementation;
}
