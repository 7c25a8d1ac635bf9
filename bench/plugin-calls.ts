/**
 * For `bench:plugin`: the processor time a plugin process spends serving a no-change preview's calls,
 * the plugin's beside the no-op plugin's (`noop-plugin.ts`). Each executable is started as the engine
 * starts it, configured for the reference server seeded with N handlers of every type (`server.ts`),
 * then sent a Check and a Diff per handler as the engine sends them (the no-op's recorded outputs are
 * its inputs), 4 per core in flight as the engine's default parallelism has them. The CPU time (user
 * and system, from /proc: Linux only) is read at the port, after CheckConfig and Configure, and after
 * the calls; every round starts fresh processes, the two taking turns.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { createInterface } from "node:readline";

import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckRequest,
  type CheckResponse,
  ConfigureRequest,
  DiffRequest,
  DiffResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";

import { inputsFromOutputs, outputsFrom, refreshedOutputs, toLive } from "../provider/core/inputs";
import { encodeProperties, secret } from "../provider/plugin/properties";
import { SECRET_INPUTS, SECRET_OUTPUTS } from "../provider/core/secret-properties";
import { HANDLER_RESOURCE_TOKEN } from "../provider/tokens";
import { NotificationHandlersClient } from "../sdk/client/client";
import { readWholeAccount } from "../sdk/client/domain/whole-account";
import { startBenchServer } from "./server";

/** CPU milliseconds of one process: to its port, for CheckConfig and Configure, for the calls. */
export interface CallsCpu {
  start: number;
  configure: number;
  calls: number;
}

/** One handler's resource as the engine knows it in a no-change preview. */
interface Resource {
  urn: string;
  name: string;
  id: string;
  /** The program's inputs, credential fields marked secret as the SDKs mark them. */
  inputs: Struct;
  /** The plugin's recorded outputs. */
  outputs: Struct;
}

/** Whether this machine can tell a process's CPU time (Linux's /proc). */
export const canMeasureProcessCpu = (): boolean => process.platform === "linux";

/** User and system CPU time of a process so far, in milliseconds (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function call<Req, Res>(
  method: (request: Req, done: (error: grpc.ServiceError | null, response: Res) => void) => unknown,
  request: Req,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, (error, response) => (error === null ? resolve(response) : reject(error)));
  });
}

/** The resources of every handler on the server, as a program that declares each would have them. */
async function resourcesOf(baseURL: string, apiKey: string): Promise<Resource[]> {
  const client = new NotificationHandlersClient({ baseURL, apiKey });
  try {
    const { handlers } = await readWholeAccount(client.notificationHandlers);
    return handlers.map((record, i) => {
      const live = toLive(record);
      const inputs = inputsFromOutputs(refreshedOutputs({}, live));
      return {
        urn: `urn:pulumi:bench::plugin::${HANDLER_RESOURCE_TOKEN}::h${i}`,
        name: `h${i}`,
        id: String(record.id),
        inputs: encodeProperties(inputs, SECRET_INPUTS),
        outputs: encodeProperties(outputsFrom(inputs, live), SECRET_OUTPUTS),
      };
    });
  } finally {
    await client.close();
  }
}

/** Serves the calls with one fresh process of `binary`; `noop` sends the no-op's recorded outputs. */
async function serveOnce(
  binary: string,
  noop: boolean,
  server: { baseURL: string; apiKey: string },
  resources: Resource[],
): Promise<CallsCpu> {
  const child = spawn(binary, ["127.0.0.1:1"], { env: {}, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const [port] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    const pid = child.pid!;
    const atPort = processCpuMs(pid);
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const config = encodeProperties({ baseUrl: server.baseURL, apiKey: secret(server.apiKey) });
      const providerUrn = "urn:pulumi:bench::plugin::pulumi:providers:notification-handlers::default";
      await call(
        client.checkConfig.bind(client),
        new CheckRequest().setUrn(providerUrn).setOlds(config).setNews(config),
      );
      await call(
        client.configure.bind(client),
        new ConfigureRequest().setArgs(config).setAcceptsecrets(true),
      );
      const configured = processCpuMs(pid);

      let next = 0;
      const worker = async (): Promise<void> => {
        for (let resource = resources[next++]; resource !== undefined; resource = resources[next++]) {
          const { urn, name, id, inputs, outputs } = resource;
          const checked = await call<CheckRequest, CheckResponse>(
            client.check.bind(client),
            new CheckRequest()
              .setUrn(urn)
              .setType(HANDLER_RESOURCE_TOKEN)
              .setName(name)
              .setOlds(inputs)
              .setNews(inputs),
          );
          const diff = await call<DiffRequest, DiffResponse>(
            client.diff.bind(client),
            new DiffRequest()
              .setId(id)
              .setUrn(urn)
              .setType(HANDLER_RESOURCE_TOKEN)
              .setName(name)
              .setOlds(noop ? inputs : outputs)
              .setNews(checked.getInputs())
              .setOldInputs(inputs),
          );
          if (diff.getChanges() === DiffResponse.DiffChanges.DIFF_SOME)
            throw new Error(
              `${name} (handler ${id}) shows a change: the benchmark's requests do not match the handler`,
            );
        }
      };
      await Promise.all(Array.from({ length: 4 * availableParallelism() }, worker));
      return { start: atPort, configure: configured - atPort, calls: processCpuMs(pid) - configured };
    } finally {
      client.close();
    }
  } finally {
    child.kill("SIGTERM");
  }
}

/** Medians over `rounds` of each kind's process CPU, serving `handlers` resources' no-change calls. */
export async function measureCalls(
  binaries: { provider: string; noop: string },
  handlers: number,
  rounds: number,
): Promise<{ provider: CallsCpu; noop: CallsCpu }> {
  const server = await startBenchServer(handlers);
  try {
    const resources = await resourcesOf(server.baseURL, server.apiKey);
    const runs: { provider: CallsCpu[]; noop: CallsCpu[] } = { provider: [], noop: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["provider", "noop"] as const) : (["noop", "provider"] as const);
      for (const kind of order)
        runs[kind].push(await serveOnce(binaries[kind], kind === "noop", server, resources));
    }
    const medians = (of: CallsCpu[]): CallsCpu => ({
      start: median(of.map((r) => r.start)),
      configure: median(of.map((r) => r.configure)),
      calls: median(of.map((r) => r.calls)),
    });
    return { provider: medians(runs.provider), noop: medians(runs.noop) };
  } finally {
    await server.close();
  }
}

/** The median of some values (the upper one of an even count). */
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
