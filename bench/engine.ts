#!/usr/bin/env node
/**
 * `npm run bench:engine`: what the provider costs under the real Pulumi engine, and what it asks of
 * the server.
 *
 * 1. Engine overhead: `pulumi up` of 100 creates with this provider against the reference server
 *    (rate limit off), and the same program with a dynamic provider that does nothing, taking turns
 *    round after round; prints both, the ratio per round and the median ratio (target: 1.2x).
 *    Where the time goes: the CPU time of each process during the up (the engine, the dynamic-provider
 *    process, the reference server, this process with the inline program), read from /proc on Linux.
 * 2. Request floor: the requests the server served for a create-up of 100, a no-op preview and up,
 *    and a destroy of 100, beside the figures of the provider before writes shared their verifying
 *    reads (one read per write); at the engine's default parallelism (4 per core) and at 16 and 32.
 * `--rounds N` sets the rounds of part 1 (default 5: single rounds spread widely; 0 skips it).
 * 3. With `--rate-limited`: the create-up of 100 against the emulated 60-requests-a-minute limit of
 *    deployed instances, with its wall time (about two minutes).
 *
 * It prints figures and never fails on a missed target.
 */
import { availableParallelism, loadavg } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

import * as pulumi from "@pulumi/pulumi";

import type * as PackageModule from "../index";
import { ensureEngine } from "../scripts/engine";
import { createOfflineStack } from "../scripts/offline-stack";
import { type CountingServer, startCountingServer } from "./counting-server";
import { DescendantCpu, type DescendantCpuTimes, canMeasureDescendants } from "./process-cpu";

const ROOT = resolve(__dirname, "..", "..");
const N = 100;
const DEFAULT_ROUNDS = 5;
const TARGET_RATIO = 1.2;
/** Requests of the provider before this benchmark's changes: one write and one read per handler. */
const BEFORE = { createUp: 2 * N, destroy: 2 * N, noop: Math.ceil(N / 1000), rateLimitedSeconds: 188 };

/** The compiled package, loaded by name: the provider closure Pulumi serializes is the package's own. */
const pkg = (): typeof PackageModule =>
  createRequire(join(ROOT, "package.json"))("pulumi-notification-handlers") as typeof PackageModule;

/** A dynamic provider that makes nothing: the engine's own cost for the same program. */
const noopProvider: pulumi.dynamic.ResourceProvider = {
  create: (inputs: Record<string, unknown>) =>
    Promise.resolve({ id: `${String(inputs.name)}-${Date.now()}`, outs: inputs }),
};

class NoopHandler extends pulumi.dynamic.Resource {
  constructor(name: string, props: Record<string, unknown>) {
    super(noopProvider, name, props, undefined, "bench:noop:Handler");
  }
}

function program(kind: "provider" | "noop"): () => Promise<Record<string, unknown>> {
  return () => {
    const { NotificationHandler } = pkg();
    for (let i = 0; i < N; i++) {
      const args = { type: "internal_notification" as const, name: `handler ${i}` };
      if (kind === "provider") new NotificationHandler(`h${i}`, args);
      else new NoopHandler(`h${i}`, args);
    }
    return Promise.resolve({});
  };
}

async function stackFor(
  binDir: string,
  run: () => Promise<Record<string, unknown>>,
  config: Record<string, string | { secret: string }> = {},
) {
  return createOfflineStack({
    binDir,
    workRoot: join(ROOT, ".e2e-work"),
    program: run,
    projectName: "bench",
    config,
    env: { NOTIFICATION_HANDLERS_BASE_URL: "", NOTIFICATION_HANDLERS_API_KEY: "" },
  });
}

const config = (url: string, key: string, strategy = "in-place") => ({
  "notification-handlers:baseUrl": url,
  "notification-handlers:apiKey": { secret: key },
  "notification-handlers:updateStrategy": strategy,
});

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** What one timed up measured. */
interface UpRun {
  ms: number;
  stateBytesPerResource: number;
  /** CPU milliseconds by process; undefined where /proc cannot be read. */
  cpu: (DescendantCpuTimes & { program: number; server: number }) | undefined;
}

/** One timed up: its wall time, the CPU time of each process, and the state file's size after it. */
async function timedUp(binDir: string, kind: "provider" | "noop", server: CountingServer): Promise<UpRun> {
  const offline = await stackFor(
    binDir,
    program(kind),
    kind === "provider" ? config(server.url, await server.newKey()) : {},
  );
  try {
    const measureCpu = canMeasureDescendants();
    const serverBefore = await server.cpuMs();
    const selfBefore = process.cpuUsage();
    const descendants = measureCpu ? new DescendantCpu(new Set([server.pid])) : undefined;
    const started = performance.now();
    const up = await offline.stack.up();
    const ms = performance.now() - started;
    const self = process.cpuUsage(selfBefore);
    const others = descendants?.stop();
    const serverMs = (await server.cpuMs()) - serverBefore;
    if (up.summary.result !== "succeeded") throw new Error(`${kind} up: ${up.summary.result}`);
    return {
      ms,
      stateBytesPerResource: Buffer.byteLength(await offline.stateFile()) / N,
      cpu:
        others === undefined
          ? undefined
          : { ...others, program: (self.user + self.system) / 1000, server: serverMs },
    };
  } finally {
    await offline.dispose();
  }
}

async function main(): Promise<void> {
  const rateLimited = process.argv.includes("--rate-limited");
  const roundsAt = process.argv.indexOf("--rounds");
  const ROUNDS = roundsAt === -1 ? DEFAULT_ROUNDS : Number(process.argv[roundsAt + 1]);
  const engine = await ensureEngine({
    projectRoot: ROOT,
    log: (l) => process.stderr.write(`[engine] ${l}\n`),
  });
  const server = await startCountingServer(0);
  try {
    if (ROUNDS > 0) await overhead(engine.binDir, server, ROUNDS);
    await requests(engine.binDir, server);
  } finally {
    await server.close();
  }
  if (rateLimited) await rateLimitedUp(engine.binDir);
}

const CPU_ROWS: [keyof NonNullable<UpRun["cpu"]>, string][] = [
  ["engine", "the engine (`pulumi`)"],
  ["provider", "the dynamic-provider process"],
  ["server", "the reference server"],
  ["program", "the inline program (this process)"],
  ["other", "plugin launchers"],
];

async function overhead(binDir: string, server: CountingServer, rounds: number): Promise<void> {
  process.stdout.write(`## Engine overhead: pulumi up of ${N} creates, ${rounds} rounds\n\n`);
  process.stdout.write(`| round | this provider | no-op provider | ratio |\n|---|---|---|---|\n`);
  const runs: Record<"provider" | "noop", UpRun[]> = { provider: [], noop: [] };
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Taking turns at going first, so drift in the machine's speed falls on both alike.
    const order: ("provider" | "noop")[] = round % 2 === 1 ? ["provider", "noop"] : ["noop", "provider"];
    for (const kind of order) runs[kind].push(await timedUp(binDir, kind, server));
    await server.take();
    const p = runs.provider.at(-1)?.ms ?? 0;
    const n = runs.noop.at(-1)?.ms ?? 1;
    ratios.push(p / n);
    process.stdout.write(`| ${round} | ${seconds(p)} | ${seconds(n)} | ${(p / n).toFixed(2)}x |\n`);
  }
  const ratio = median(ratios);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  const wall = (kind: "provider" | "noop"): number => median(runs[kind].map((r) => r.ms));
  process.stdout.write(
    `\nmedian: ${seconds(wall("provider"))} against ${seconds(wall("noop"))}, ratio ${ratio.toFixed(2)}x ` +
      `(target ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "met" : "missed"}); load average ${load}\n`,
  );
  const kb = (bytes: number | undefined): string => `${((bytes ?? 0) / 1024).toFixed(1)} KB`;
  process.stdout.write(
    `state file per resource: ${kb(runs.provider[0]?.stateBytesPerResource)} with this provider, ` +
      `${kb(runs.noop[0]?.stateBytesPerResource)} with the no-op\n\n`,
  );
  if (runs.provider.some((r) => r.cpu === undefined)) {
    process.stdout.write("CPU time per process: not measured (no /proc on this system)\n\n");
    return;
  }
  const cpu = (kind: "provider" | "noop", row: keyof NonNullable<UpRun["cpu"]>): number =>
    median(runs[kind].map((r) => r.cpu?.[row] ?? 0));
  const total = (kind: "provider" | "noop"): number =>
    median(runs[kind].map((r) => CPU_ROWS.reduce((sum, [row]) => sum + (r.cpu?.[row] ?? 0), 0)));
  process.stdout.write(
    `### Where the time goes: CPU time during the up (median of ${rounds}; ${availableParallelism()} cores ` +
      `offer ${seconds(availableParallelism() * wall("noop"))} in the no-op's wall time)\n\n`,
  );
  process.stdout.write(`| process | this provider | no-op provider | difference |\n|---|---|---|---|\n`);
  const line = (label: string, p: number, n: number): void => {
    const sign = p - n >= 0 ? "+" : "";
    process.stdout.write(`| ${label} | ${seconds(p)} | ${seconds(n)} | ${sign}${seconds(p - n)} |\n`);
  };
  for (const [row, label] of CPU_ROWS) line(label, cpu("provider", row), cpu("noop", row));
  line("all of them", total("provider"), total("noop"));
  process.stdout.write("\n");
}

/**
 * The engine's parallelism levels the request counts are taken at (undefined: its default). 12 is
 * the least at which 100 creates fit in 110 requests: ceil(100 / 12) = 9 lists and the snapshot.
 */
const PARALLELISM = [undefined, 12, 16, 32] as const;
/** The target for a create-up and a destroy of 100. */
const TARGET_REQUESTS = 110;

/**
 * The fewest requests while each engine operation waits for its own check: N writes, one list per
 * wave of P operations, and for creates the account snapshot.
 */
function floorOf(parallel: number, creates: boolean): number {
  return N + Math.ceil(N / parallel) + (creates ? 1 : 0);
}

async function requests(binDir: string, server: CountingServer): Promise<void> {
  process.stdout.write(`## Requests served, ${N} handlers, rate limit off\n\n`);
  process.stdout.write(
    `| operation | parallel | before (one read per write) | now | lists | reads | writes | floor at this parallelism |\n`,
  );
  process.stdout.write(`|---|---|---|---|---|---|---|---|\n`);
  const defaultParallel = 4 * availableParallelism();
  for (const parallel of PARALLELISM) {
    const offline = await stackFor(binDir, program("provider"), config(server.url, await server.newKey()));
    const options = parallel === undefined ? {} : { parallel };
    const label = parallel === undefined ? `default (${defaultParallel})` : String(parallel);
    try {
      const row = async (name: string, before: number, floor?: number): Promise<void> => {
        const c = await server.take();
        const bound = floor === undefined ? "" : String(floor);
        process.stdout.write(
          `| ${name} | ${label} | ${before} | ${c.total} | ${c.lists} | ${c.reads} | ${c.writes} | ${bound} |\n`,
        );
      };
      await server.take();
      await offline.stack.up(options);
      await row(`up creating ${N}`, BEFORE.createUp, floorOf(parallel ?? defaultParallel, true));
      if (parallel === undefined) {
        await offline.stack.preview();
        await row("no-op preview", BEFORE.noop);
        await offline.stack.up();
        await row("no-op up", BEFORE.noop);
      }
      await offline.stack.destroy(options);
      await row(`destroy of ${N}`, BEFORE.destroy, floorOf(parallel ?? defaultParallel, false));
    } finally {
      await offline.dispose();
    }
  }
  const least = Math.ceil(N / (TARGET_REQUESTS - N - 1));
  process.stdout.write(
    `\nThe engine's default parallelism is 4 per core: ${defaultParallel} here. Each operation waits for ` +
      `its own check, so a list verifies at most one wave of P operations; ${TARGET_REQUESTS} requests ` +
      `for ${N} creates need a parallelism of ${least} or more.\n`,
  );
}

async function rateLimitedUp(binDir: string): Promise<void> {
  const limited = await startCountingServer(60, "2026");
  try {
    const offline = await stackFor(
      binDir,
      program("provider"),
      config(limited.url, await limited.newKey(), "replace"),
    );
    try {
      const started = performance.now();
      await offline.stack.up();
      const ms = performance.now() - started;
      const c = await limited.take();
      process.stdout.write(
        `\n## Up of ${N} against the emulated limit of 60 requests a minute\n\n` +
          `${c.total} requests in ${seconds(ms)} ` +
          `(before: ${BEFORE.createUp} requests, about ${BEFORE.rateLimitedSeconds} s)\n`,
      );
    } finally {
      await offline.dispose();
    }
  } finally {
    await limited.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
