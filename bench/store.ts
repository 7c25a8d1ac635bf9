#!/usr/bin/env node
/**
 * `npm run bench:store`: throughput of the reference server on each store, side by side: one
 * instance on an SQLite file (the default), one on PostgreSQL, and three on one PostgreSQL
 * database behind a round-robin client. Every instance is a `notification-handlers-server serve`
 * process of its own, so three instances can use more than one core; PostgreSQL is a throwaway
 * server on 127.0.0.1 (scripts/support/postgres.ts), durable as a deployment is (every commit synced, as
 * SQLite's synchronous=FULL does). The rate limit is on but out of reach, so every request pays for
 * counting (in memory for SQLite, a row update in the database for PostgreSQL).
 *
 * It prints figures, never a verdict: on a shared machine they move with the load (printed too).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { type LocalPostgres, startPostgres } from "../scripts/support/postgres";
import { run, seededRandom, summarize } from "./measure";

const CLI = join(__dirname, "..", "server", "main.js");
const PATH = "/api/notification-handlers";
/** Handlers created before the reads, so reads and lists find real rows. */
const SEEDED = 500;
const CONCURRENCY = 32;
const SEED = 0x5eed;
/** A limit no run reaches: the counting is measured, not the 429s. */
const RATE_LIMIT = "1000000";

/** A started server process. */
interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
}

async function startInstance(db: string): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--port", "0", "--db", db, "--rate-limit", RATE_LIMIT, "--log-level", "warn"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  return { url: line.replace("listening on ", ""), child };
}

async function stopInstance(instance: Instance): Promise<void> {
  if (instance.child.exitCode !== null) return;
  const exited = once(instance.child, "exit");
  instance.child.kill("SIGTERM");
  await exited;
}

async function newKey(db: string): Promise<string> {
  const child = spawn(process.execPath, [CLI, "keys", "create", "--db", db, "--user", "bench"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`keys create exited with ${code}`);
  return out.trim();
}

/** The figures of one setup, by workload. */
type Row = Record<string, number>;

const WORKLOADS = ["read one", "list 25", "create", "update", "mixed 80/20"] as const;
type Workload = (typeof WORKLOADS)[number];
const COUNTS: Record<Workload, number> = {
  "read one": 4_000,
  "list 25": 2_000,
  create: 1_500,
  update: 1_500,
  "mixed 80/20": 3_000,
};

/** Measures every workload against `instances`, calls spread over them in turn. */
async function measure(instances: readonly Instance[], key: string): Promise<Row> {
  const dispatcher = new Agent({ keepAliveTimeout: 4_000, connections: CONCURRENCY });
  const headers = { authorization: `Bearer ${key}` };
  const at = (i: number): string => instances[i % instances.length]?.url ?? "";
  const send = async (i: number, method: "GET" | "POST", path: string, form?: string): Promise<unknown> => {
    const res = await request(`${at(i)}${path}`, {
      dispatcher,
      method,
      headers:
        form === undefined ? headers : { ...headers, "content-type": "application/x-www-form-urlencoded" },
      ...(form === undefined ? {} : { body: form }),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
    return JSON.parse(text);
  };
  const create = (i: number, name: string): Promise<unknown> =>
    send(i, "POST", PATH, `name=${encodeURIComponent(name)}&type=email&email=bench-${i}%40example.com`);
  try {
    const ids: number[] = [];
    await run(SEEDED, CONCURRENCY, async (i) => {
      const answer = (await create(i, `seed ${i}`)) as { data: { id: number } };
      ids.push(answer.data.id);
    });
    const random = seededRandom(SEED);
    const pick = (): number => ids[Math.floor(random() * ids.length)] ?? 1;
    const calls: Record<Workload, (i: number) => Promise<unknown>> = {
      "read one": (i) => send(i, "GET", `${PATH}/${pick()}`),
      "list 25": (i) => send(i, "GET", `${PATH}?page=${1 + (i % 20)}`),
      create: (i) => create(i, `bench ${i}`),
      update: (i) => send(i, "POST", `${PATH}/${pick()}`, `name=renamed-${i}`),
      "mixed 80/20": (i) =>
        i % 5 === 0 ? send(i, "POST", `${PATH}/${pick()}`, `name=mixed-${i}`) : calls["read one"](i),
    };
    const row: Row = {};
    for (const workload of WORKLOADS) {
      await run(200, CONCURRENCY, calls[workload]); // warm-up: connections, JIT, caches
      row[workload] = summarize(await run(COUNTS[workload], CONCURRENCY, calls[workload])).requestsPerSecond;
    }
    return row;
  } finally {
    await dispatcher.close();
  }
}

async function setup(name: string, db: string, count: number): Promise<[string, Row]> {
  process.stderr.write(`${name}...\n`);
  const key = await newKey(db);
  const instances = await Promise.all(Array.from({ length: count }, () => startInstance(db)));
  try {
    return [name, await measure(instances, key)];
  } finally {
    await Promise.all(instances.map(stopInstance));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "nh-bench-store-"));
  let postgres: LocalPostgres | undefined;
  try {
    postgres = await startPostgres({ durable: true });
    const results = [
      await setup("1 SQLite instance", join(dir, "bench.db"), 1),
      await setup("1 PostgreSQL instance", await postgres.createDatabase("bench_one"), 1),
      await setup("3 PostgreSQL instances", await postgres.createDatabase("bench_three"), 3),
    ];
    const cpu = cpus()[0]?.model ?? "unknown CPU";
    console.log(
      `\nRequests per second, ${CONCURRENCY} in flight, rate limit counted, commits synced to disk (${availableParallelism()} cores, ${cpu})\n`,
    );
    console.log(`| workload | ${results.map(([name]) => name).join(" | ")} |`);
    console.log(`|---|${results.map(() => "---:").join("|")}|`);
    for (const workload of WORKLOADS) {
      const cells = results.map(([, row]) => (row[workload] ?? Number.NaN).toFixed(0));
      console.log(`| ${workload} (${COUNTS[workload]}) | ${cells.join(" | ")} |`);
    }
    const load = loadavg()
      .map((n) => n.toFixed(2))
      .join(", ");
    console.log(
      `\nLoad average after the run: ${load}. The client, the servers and PostgreSQL share the machine.`,
    );
  } finally {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
