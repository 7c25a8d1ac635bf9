/**
 * The project's own language hosts, `pulumi-language-nodejs`, `-python` and `-go`, for machines with no
 * installed Pulumi: development tooling, not part of the published package (see
 * docs/engine.md#the-language-host).
 *
 * Each host's launcher runs this file with `--language=NAME`, then what the CLI passes:
 * `[--logtostderr] [-v=N] [--tracing URL] ENGINE_ADDRESS`. It serves `pulumirpc.LanguageRuntime` over
 * plain gRPC on 127.0.0.1, prints its port and a newline as the first bytes on stdout, and exits once
 * the engine is gone.
 */
import { flushCompileCache } from "node:module";
import { connect } from "node:net";

import * as grpc from "@grpc/grpc-js";
import { LanguageRuntimeService } from "@pulumi/pulumi/proto/language_grpc_pb";

import { goRunner } from "./go";
import { nodejsRunner } from "./nodejs";
import { pythonRunner } from "./python";
import type { LanguageRunner } from "./runner";
import { languageRuntime } from "./service";

/** The runners by the language that `--language` names. */
const RUNNERS: Record<string, LanguageRunner> = Object.fromEntries(
  [nodejsRunner, pythonRunner, goRunner].map((runner) => [runner.language, runner]),
);

/** How often the host checks that the engine still listens, and how many misses end it. */
const ENGINE_CHECK_MS = 1_000;
const ENGINE_MISSES = 3;

function parseArguments(argv: string[]): { runner: LanguageRunner; engineAddress: string; tracing: string } {
  let tracing = "";
  let language = "";
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg.startsWith("--language=")) language = arg.slice("--language=".length);
    else if (arg === "--tracing") tracing = argv[++i] ?? "";
    else if (arg.startsWith("--tracing=")) tracing = arg.slice("--tracing=".length);
    else if (!arg.startsWith("-")) positional.push(arg);
  }
  const runner = RUNNERS[language];
  const engineAddress = positional.at(-1);
  if (runner === undefined || engineAddress === undefined) {
    process.stderr.write(
      `usage: main.js --language=${Object.keys(RUNNERS).join("|")} [--tracing URL] ENGINE_ADDRESS\n`,
    );
    process.exit(2);
  }
  return { runner, engineAddress, tracing };
}

/** Whether something accepts connections at `host:port`. */
function listening(address: string): Promise<boolean> {
  const colon = address.lastIndexOf(":");
  return new Promise((resolveCheck) => {
    const socket = connect({
      host: address.slice(0, colon) || "127.0.0.1",
      port: Number(address.slice(colon + 1)),
    });
    socket.setTimeout(ENGINE_CHECK_MS, () => socket.destroy());
    socket.once("connect", () => {
      socket.destroy();
      resolveCheck(true);
    });
    socket.once("close", () => resolveCheck(false));
    socket.once("error", () => undefined);
  });
}

/** Ends the host when the engine stops listening, so that a killed CLI leaves no host behind. */
function exitWithEngine(engineAddress: string): void {
  let misses = 0;
  const timer = setInterval(() => {
    void listening(engineAddress).then((up) => {
      misses = up ? 0 : misses + 1;
      if (misses >= ENGINE_MISSES) process.exit(0);
    });
  }, ENGINE_CHECK_MS);
  timer.unref();
}

function main(): void {
  const { runner, engineAddress, tracing } = parseArguments(process.argv.slice(2));
  const server = new grpc.Server();
  server.addService(LanguageRuntimeService, languageRuntime(runner, engineAddress, tracing));
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error !== null) {
      process.stderr.write(`pulumi-language-${runner.language}: could not listen: ${error.message}\n`);
      process.exit(1);
    }
    process.stdout.write(`${port}\n`);
    // The engine ends the host with a signal, before Node.js would write its compile cache (when
    // NODE_COMPILE_CACHE is set): write it now, so that the next host starts from it.
    flushCompileCache();
    exitWithEngine(engineAddress);
  });
}

main();
