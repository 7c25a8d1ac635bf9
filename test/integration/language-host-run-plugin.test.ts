/**
 * The language host's RunPlugin over gRPC on 127.0.0.1, with a runner whose plugin is a small `node`
 * script: the plugin's output streams back on its own stream and the call ends with its exit code; a
 * plugin that cannot start is answered with a message and exit code 1 (the CLI waits for ever on a
 * call that fails); a cancelled call stops the plugin's process.
 */
import { tmpdir } from "node:os";

import * as grpc from "@grpc/grpc-js";
import { LanguageRuntimeClient, LanguageRuntimeService } from "@pulumi/pulumi/proto/language_grpc_pb";
import * as language from "@pulumi/pulumi/proto/language_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { LanguageRunner, PluginCommand } from "../../scripts/engine/language-host/runner";
import { languageRuntime } from "../../scripts/engine/language-host/service";

/** The command the runner answers RunPlugin with, set by each test. */
let pluginCommand: PluginCommand = { error: "no plugin" };

const runner: LanguageRunner = {
  language: "nodejs",
  run: () => Promise.resolve({ kind: "ok" }),
  about: () => Promise.resolve({ name: "node", version: process.version }),
  plugin: () => pluginCommand,
};

let server: grpc.Server;
let client: LanguageRuntimeClient;

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(LanguageRuntimeService, languageRuntime(runner, "127.0.0.1:1", ""));
  const port = await new Promise<number>((resolvePort, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolvePort(bound) : reject(error),
    ),
  );
  client = new LanguageRuntimeClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});
afterAll(() => {
  client.close();
  server.forceShutdown();
});

/** A plugin that runs `script` with `node`. */
const nodeScript = (script: string): PluginCommand => ({
  command: process.execPath,
  args: ["-e", script],
  cwd: tmpdir(),
  env: process.env,
});

/** What a RunPlugin call streamed back, and how it ended. */
interface PluginRun {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  error: grpc.ServiceError | undefined;
}

/** Calls RunPlugin; `onStdout` sees the stdout received so far, and may cancel the call. */
function runPlugin(onStdout: (stdout: string, call: grpc.ClientReadableStream<unknown>) => void = () => {}) {
  return new Promise<PluginRun>((resolveRun) => {
    const run: PluginRun = { stdout: "", stderr: "", exitCode: undefined, error: undefined };
    const request = new language.RunPluginRequest().setPwd(tmpdir()).setKind("analyzer");
    const call = client.runPlugin(request);
    call.on("data", (response: language.RunPluginResponse) => {
      if (response.hasStdout()) {
        run.stdout += Buffer.from(response.getStdout_asU8()).toString();
        onStdout(run.stdout, call);
      }
      if (response.hasStderr()) run.stderr += Buffer.from(response.getStderr_asU8()).toString();
      if (response.hasExitcode()) run.exitCode = response.getExitcode();
    });
    call.on("error", (error: grpc.ServiceError) => (run.error = error));
    call.on("close", () => resolveRun(run));
  });
}

/** Whether a process `pid` is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("RunPlugin", () => {
  it("streams the plugin's stdout and stderr, then ends with its exit code", async () => {
    pluginCommand = nodeScript(
      `process.stdout.write("12345\\n"); process.stderr.write("warned"); process.exit(3)`,
    );
    const run = await runPlugin();
    expect(run).toEqual({ stdout: "12345\n", stderr: "warned", exitCode: 3, error: undefined });
  });

  it("answers a plugin it cannot start, or that the runner refuses, with a message and exit code 1", async () => {
    pluginCommand = { command: "/nonexistent/plugin", args: [], cwd: tmpdir(), env: process.env };
    const missing = await runPlugin();
    expect(missing.error).toBeUndefined();
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/^could not start \/nonexistent\/plugin: .*ENOENT/);

    pluginCommand = { error: "no @pulumi/pulumi for the pack" };
    expect(await runPlugin()).toEqual({
      stdout: "",
      stderr: "no @pulumi/pulumi for the pack\n",
      exitCode: 1,
      error: undefined,
    });
  });

  it("stops the plugin's process when the call is cancelled", async () => {
    pluginCommand = nodeScript(`process.stdout.write(process.pid + "\\n"); setInterval(() => {}, 1_000)`);
    let pid = 0;
    const run = await runPlugin((stdout, call) => {
      pid = Number(stdout.trim());
      call.cancel();
    });
    expect(run.error?.code).toBe(grpc.status.CANCELLED);
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  });
});
