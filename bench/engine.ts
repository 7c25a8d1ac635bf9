#!/usr/bin/env node
/**
 * `npm run bench:engine`: what the provider costs under the real Pulumi engine, and what it asks of
 * the server.
 *
 * 1. Engine overhead: `pulumi up` of 100 creates with this provider against the reference server
 *    (rate limit off), and the same program with a dynamic provider that does nothing, taking turns
 *    round after round; prints both, the ratio per round and the median ratio (target: 1.2x).
 * 2. Request floor: the requests the server served for a create-up of 100, a no-op preview and up,
 *    and a destroy of 100, beside the figures of the provider before writes shared their verifying
 *    reads (one read per write).
 * `--rounds N` sets the rounds of part 1 (default 3; 0 skips it).
 * 3. With `--rate-limited`: the create-up of 100 against the emulated 60-requests-a-minute limit of
 *    deployed instances, with its wall time (about two minutes).
 *
 * It prints figures and never fails on a missed target.
 */
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

import * as pulumi from "@pulumi/pulumi";

import type * as PackageModule from "../index";
import { ensureEngine } from "../scripts/engine";
import { createOfflineStack } from "../scripts/offline-stack";
import { formatDatetime } from "../sdk/resources/notification-handlers";
import { buildApp, openSqliteRepository } from "../server/app";

const ROOT = resolve(__dirname, "..", "..");
const N = 100;
const DEFAULT_ROUNDS = 3;
const TARGET_RATIO = 1.2;
/** Requests of the provider before this benchmark's changes: one write and one read per handler. */
const BEFORE = { createUp: 2 * N, destroy: 2 * N, noop: Math.ceil(N / 1000), rateLimitedSeconds: 188 };

interface CountingServer {
  url: string;
  newKey(): Promise<string>;
  /** Requests served since the last call, by kind. */
  take(): { lists: number; reads: number; writes: number; total: number; spanMs: number };
  close(): Promise<void>;
}

async function startServer(rateLimit: number, emulate?: "2026"): Promise<CountingServer> {
  const repository = openSqliteRepository(":memory:");
  const app = buildApp({ repository, rateLimit, ...(emulate === undefined ? {} : { emulate }) });
  let served: { method: string; path: string; at: number }[] = [];
  app.addHook("onResponse", (request, _reply, done) => {
    served.push({ method: request.method, path: request.url.split("?")[0] ?? "", at: performance.now() });
    done();
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    newKey: async () => {
      const now = formatDatetime(new Date());
      return repository.createApiKey(await repository.ensureUser(`bench-${randomUUID()}`, now), now);
    },
    take() {
      const all = served;
      served = [];
      const isList = (s: { method: string; path: string }): boolean =>
        s.method === "GET" && /\/api\/notification-handlers\/?$/.test(s.path);
      const lists = all.filter(isList).length;
      const reads = all.filter((s) => s.method === "GET").length - lists;
      const spanMs = all.length === 0 ? 0 : (all.at(-1)?.at ?? 0) - (all[0]?.at ?? 0);
      return { lists, reads, writes: all.length - lists - reads, total: all.length, spanMs };
    },
    async close() {
      await app.close();
      await repository.close();
    },
  };
}

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

/** One timed up: its wall time, and the state file's size per resource after it. */
async function timedUp(
  binDir: string,
  kind: "provider" | "noop",
  server: CountingServer,
): Promise<{ ms: number; stateBytesPerResource: number }> {
  const offline = await stackFor(
    binDir,
    program(kind),
    kind === "provider" ? config(server.url, await server.newKey()) : {},
  );
  try {
    const started = performance.now();
    const up = await offline.stack.up();
    const ms = performance.now() - started;
    if (up.summary.result !== "succeeded") throw new Error(`${kind} up: ${up.summary.result}`);
    return { ms, stateBytesPerResource: Buffer.byteLength(await offline.stateFile()) / N };
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
  const server = await startServer(0);
  try {
    if (ROUNDS > 0) await overhead(engine.binDir, server, ROUNDS);
    await requests(engine.binDir, server);
  } finally {
    await server.close();
  }
  if (rateLimited) await rateLimitedUp(engine.binDir);
}

async function overhead(binDir: string, server: CountingServer, rounds: number): Promise<void> {
  process.stdout.write(`## Engine overhead: pulumi up of ${N} creates, ${rounds} rounds\n\n`);
  process.stdout.write(`| round | this provider | no-op provider | ratio |\n|---|---|---|---|\n`);
  const ratios: number[] = [];
  const ours: number[] = [];
  const noops: number[] = [];
  const stateBytes: Record<string, number> = {};
  for (let round = 1; round <= rounds; round++) {
    // Taking turns at going first, so drift in the machine's speed falls on both alike.
    const order: ("provider" | "noop")[] = round % 2 === 1 ? ["provider", "noop"] : ["noop", "provider"];
    const times: Record<string, number> = {};
    for (const kind of order) {
      const run = await timedUp(binDir, kind, server);
      times[kind] = run.ms;
      stateBytes[kind] = run.stateBytesPerResource;
    }
    server.take();
    const p = times.provider ?? 0;
    const n = times.noop ?? 1;
    ours.push(p);
    noops.push(n);
    ratios.push(p / n);
    process.stdout.write(`| ${round} | ${seconds(p)} | ${seconds(n)} | ${(p / n).toFixed(2)}x |\n`);
  }
  const ratio = median(ratios);
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  process.stdout.write(
    `\nmedian: ${seconds(median(ours))} against ${seconds(median(noops))}, ratio ${ratio.toFixed(2)}x ` +
      `(target ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "met" : "missed"}); load average ${load}\n`,
  );
  const kb = (bytes: number | undefined): string => `${((bytes ?? 0) / 1024).toFixed(1)} KB`;
  process.stdout.write(
    `state file per resource: ${kb(stateBytes.provider)} with this provider, ${kb(stateBytes.noop)} with the no-op\n\n`,
  );
}

async function requests(binDir: string, server: CountingServer): Promise<void> {
  process.stdout.write(`## Requests served, ${N} handlers, rate limit off\n\n`);
  process.stdout.write(`| operation | before (one read per write) | now | lists | reads | writes |\n`);
  process.stdout.write(`|---|---|---|---|---|---|\n`);
  const offline = await stackFor(binDir, program("provider"), config(server.url, await server.newKey()));
  try {
    const row = (name: string, before: number): void => {
      const c = server.take();
      process.stdout.write(`| ${name} | ${before} | ${c.total} | ${c.lists} | ${c.reads} | ${c.writes} |\n`);
    };
    server.take();
    await offline.stack.up();
    row(`up creating ${N}`, BEFORE.createUp);
    await offline.stack.preview();
    row("no-op preview", BEFORE.noop);
    await offline.stack.up();
    row("no-op up", BEFORE.noop);
    await offline.stack.destroy();
    row(`destroy of ${N}`, BEFORE.destroy);
  } finally {
    await offline.dispose();
  }
}

async function rateLimitedUp(binDir: string): Promise<void> {
  const limited = await startServer(60, "2026");
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
      const c = limited.take();
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
