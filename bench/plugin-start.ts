/**
 * One start of a plugin's executable as the engine starts it, with an empty environment (no Node.js
 * on PATH): the time from spawn to the port on stdout, and its resident memory then and after a
 * GetSchema call. `bench:plugin` and `bench:release` time their executables with it.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import * as grpc from "@grpc/grpc-js";
import { GetSchemaRequest } from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";

/** Resident memory of a process, in MiB, from /proc (Linux). */
function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

/** One start: milliseconds to the port, and the resident memory at the port and after GetSchema. */
export async function startPlugin(
  binary: string,
): Promise<{ startMs: number; idleMiB: number; servedMiB: number }> {
  const began = performance.now();
  const child = spawn(binary, ["127.0.0.1:1"], { env: {}, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.once("exit", (code) => reject(new Error(`the plugin exited with ${code}`)));
      child.stdout.setEncoding("utf8").on("data", (text: string) => {
        out += text;
        if (out.includes("\n")) resolve(out.trim());
      });
    });
    const startMs = performance.now() - began;
    const idleMiB = residentMiB(child.pid!);
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    await new Promise<void>((resolve, reject) =>
      client.getSchema(new GetSchemaRequest(), (error) => (error ? reject(error) : resolve())),
    );
    client.close();
    return { startMs, idleMiB, servedMiB: residentMiB(child.pid!) };
  } finally {
    child.kill("SIGTERM");
  }
}
