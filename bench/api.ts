#!/usr/bin/env node
/**
 * `npm run bench:api`: how much the project's client costs over a bare undici request making the
 * same HTTP call, against the reference server seeded with 10,000 handlers.
 *
 * Each operation is timed for both variants in every round, the two taking turns at going first so
 * drift in the machine's speed falls on both alike; the report shows the round with the median ratio.
 * It prints figures and a verdict against the target, and never fails on a missed target.
 */
import { arch, availableParallelism, cpus, loadavg, platform, totalmem } from "node:os";
import { performance } from "node:perf_hooks";
import { Agent, request } from "undici";
import { HANDLER_TYPE_NAMES } from "../sdk/client/domain/catalog";
import { NotificationHandlersClient } from "../sdk/client/client";
import { type Summary, medianIndex, run, seededRandom, summarize } from "./measure";
import { startBenchServer } from "./server";

const HANDLERS = 10_000;
const ROUNDS = 5;
const SEED = 0x5eed;
/** The target: the client may take at most this much longer per request than bare undici. */
const TARGET_OVERHEAD = 0.15;
/**
 * The client's own Agent settings (sdk/client/client.ts): the baseline gets the same connection reuse, so
 * the comparison is of what happens around the request, not of how sockets are kept.
 */
const AGENT_OPTIONS = { keepAliveTimeout: 4_000, connect: { timeout: 10_000 } } as const; // 4 s, 10 s

const CLIENT = "client";
const BARE = "bare undici";

/** One way of making the benchmarked HTTP calls; both resolve to the parsed answer. */
interface Variant {
  readonly name: string;
  retrieve(id: number): Promise<unknown>;
  listPage(page: number): Promise<unknown>;
}

/** One measured operation: `call(variant, i)` makes call number i (warm-up calls first). */
interface Scenario {
  readonly operation: string;
  readonly concurrency: number;
  readonly warmup: number;
  readonly count: number;
  call(variant: Variant, i: number): Promise<unknown>;
}

/** The bare baseline: one request, the whole body read and JSON.parse'd, nothing else. */
function bareVariant(baseURL: string, apiKey: string, dispatcher: Agent): Variant {
  const authorization = `Bearer ${apiKey}`;
  const getJSON = async (url: string): Promise<unknown> => {
    const res = await request(url, { dispatcher, headers: { authorization } });
    const text = await res.body.text();
    // Not a target check: a benchmark of error answers would measure the wrong thing.
    if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}`);
    return JSON.parse(text);
  };
  return {
    name: BARE,
    retrieve: (id) => getJSON(`${baseURL}api/notification-handlers/${id}`),
    listPage: (page) => getJSON(`${baseURL}api/notification-handlers/?results_per_page=1000&page=${page}`),
  };
}

function clientVariant(client: NotificationHandlersClient): Variant {
  return {
    name: CLIENT,
    retrieve: (id) => client.notificationHandlers.retrieve(id),
    // Awaiting the list gives its first page: one request, as in the bare variant.
    listPage: async (page) => await client.notificationHandlers.list({ results_per_page: 1000, page }),
  };
}

function scenarios(ids: readonly number[]): Scenario[] {
  const random = seededRandom(SEED);
  const picks = (n: number): number[] =>
    Array.from({ length: n }, () => ids[Math.floor(random() * ids.length)] ?? 1);
  const retrieveIds = picks(3_300);
  const retrieve = (concurrency: number): Scenario => ({
    operation: concurrency === 1 ? "retrieve(id), sequential" : `retrieve(id), ${concurrency} in flight`,
    concurrency,
    warmup: 300,
    count: 3_000,
    call: (variant, i) => variant.retrieve(retrieveIds[i] ?? 1),
  });
  return [
    retrieve(1),
    retrieve(8),
    {
      operation: "list(1000/page), pages 1-10",
      concurrency: 1,
      warmup: 10,
      count: 100,
      call: (variant, i) => variant.listPage(1 + (i % 10)),
    },
  ];
}

async function measure(scenario: Scenario, variant: Variant): Promise<Summary> {
  const { warmup, count, concurrency } = scenario;
  await run(warmup, concurrency, (i) => scenario.call(variant, i));
  return summarize(await run(count, concurrency, (i) => scenario.call(variant, warmup + i)));
}

function machineLine(): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const memory = (totalmem() / 2 ** 30).toFixed(1);
  return `Machine: Node ${process.version}, ${platform()} ${arch()}, ${cpu}, ${availableParallelism()} cores, ${memory} GiB RAM`;
}

const formatRate = (n: number): string => Math.round(n).toLocaleString("en-US");
const formatMs = (n: number): string => n.toFixed(n < 10 ? 3 : 1);
const formatRatio = (n: number): string => `${n.toFixed(2)}×`;

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** One operation's figures: one summary per round for each variant. */
interface Measured {
  readonly scenario: Scenario;
  readonly client: Summary[];
  readonly bare: Summary[];
}

function report(measured: readonly Measured[]): string {
  const target = Math.round(TARGET_OVERHEAD * 100);
  const rows: string[][] = [];
  const verdicts: string[] = [];
  const spreads: string[] = [];
  for (const { scenario, client: clientRounds, bare: bareRounds } of measured) {
    // Both variants ran back to back in each round, so their ratio within a round is the fair
    // comparison; the round with the median throughput ratio is the one reported, both rows from it.
    const rateRatios = clientRounds.map(
      (c, r) => c.requestsPerSecond / (bareRounds[r]?.requestsPerSecond ?? Number.NaN),
    );
    const round = medianIndex(rateRatios);
    const client = clientRounds[round];
    const bare = bareRounds[round];
    if (client === undefined || bare === undefined) continue;
    const rateRatio = client.requestsPerSecond / bare.requestsPerSecond;
    const p50Ratio = client.p50Ms / bare.p50Ms;
    const meets = rateRatio >= 1 / (1 + TARGET_OVERHEAD) && p50Ratio <= 1 + TARGET_OVERHEAD;
    const figures = (s: Summary): string[] => [
      formatRate(s.requestsPerSecond),
      formatMs(s.p50Ms),
      formatMs(s.p99Ms),
      formatRate(s.cpuMicrosPerCall),
    ];
    rows.push([scenario.operation, BARE, ...figures(bare), "baseline", ""]);
    rows.push([
      scenario.operation,
      CLIENT,
      ...figures(client),
      `${formatRatio(rateRatio)} req/s, ${formatRatio(p50Ratio)} p50`,
      meets ? "yes" : "no",
    ]);
    const slower = (1 / rateRatio - 1) * 100;
    const extraCpu = client.cpuMicrosPerCall - bare.cpuMicrosPerCall;
    verdicts.push(
      `- ${scenario.operation}: ${meets ? "meets" : "misses"} the target ` +
        `(${slower >= 0 ? `${slower.toFixed(1)}% slower` : `${(-slower).toFixed(1)}% faster`} by throughput, ` +
        `p50 ${formatRatio(p50Ratio)}, ${extraCpu >= 0 ? "+" : "-"}${formatRate(Math.abs(extraCpu))} µs CPU per request)`,
    );
    const listed = rateRatios.map((r, i) => (i === round ? `[${r.toFixed(3)}]` : r.toFixed(3)));
    spreads.push(`- ${scenario.operation}: ${listed.join(", ")}`);
  }
  return [
    markdownTable(
      [
        "operation",
        "variant",
        "req/s",
        "p50 ms",
        "p99 ms",
        "CPU µs/req",
        "ratio vs bare",
        `within ${target}%`,
      ],
      rows,
    ),
    "",
    `Target: client within ${target}% of bare undici (throughput at least bare's / ${1 + TARGET_OVERHEAD}, ` +
      `p50 at most bare's × ${1 + TARGET_OVERHEAD}).`,
    ...verdicts,
    "",
    "Per-round throughput ratios (client/bare; the reported round in brackets), to judge the noise:",
    ...spreads,
    "",
    "CPU µs/req is this process's CPU time (client, server and benchmark alike) per request; the server",
    "runs on the same thread, so a difference between the variants is what the client adds.",
  ].join("\n");
}

function methodLine(measured: readonly Measured[]): string {
  const runs = measured.map(
    ({ scenario: s }) => `${s.operation}: ${s.count.toLocaleString("en-US")} calls after ${s.warmup} warm-up`,
  );
  return (
    `Method: an untimed pass, then ${ROUNDS} rounds, the variants alternating which goes first; ` +
    `${runs.join("; ")}; the table shows, per operation, the round with the median throughput ratio.`
  );
}

/** The 1-minute load average: other work on the machine is the usual reason for noisy rounds. */
const load = (): string => (loadavg()[0] ?? 0).toFixed(1);

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = load();
  const progress = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  progress(`seeding ${HANDLERS.toLocaleString("en-US")} handlers and starting the server...`);
  const server = await startBenchServer(HANDLERS);
  const client = new NotificationHandlersClient({ baseURL: server.baseURL, apiKey: server.apiKey });
  const agent = new Agent(AGENT_OPTIONS);
  try {
    const clientV = clientVariant(client);
    const bareV = bareVariant(server.baseURL, server.apiKey, agent);

    // Answer sizes put the figures in context; the server writes JSON.stringify's output.
    const bytes = (body: unknown): number => Buffer.byteLength(JSON.stringify(body));
    const retrieveBytes = bytes(await bareV.retrieve(server.ids[0] ?? 1));
    const listBytes = bytes(await bareV.listPage(1));

    const measured: Measured[] = scenarios(server.ids).map((scenario) => ({
      scenario,
      client: [],
      bare: [],
    }));
    // An untimed pass first: without it the first round times the JIT compiling the client's
    // parsing path (a list round came out at half the speed of the later ones).
    for (const { scenario } of measured) {
      progress(`warm-up: ${scenario.operation}`);
      for (const variant of [clientV, bareV]) await measure(scenario, variant);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, row] of measured.entries()) {
        // Alternate who goes first across rounds and operations (ABAB), so neither always runs on a
        // warmer or a more tired machine.
        const pairs = [
          [clientV, row.client],
          [bareV, row.bare],
        ] as const;
        for (const [variant, rounds] of (round + index) % 2 === 0 ? pairs : [...pairs].reverse()) {
          progress(`round ${round + 1}/${ROUNDS}: ${row.scenario.operation}, ${variant.name}`);
          rounds.push(await measure(row.scenario, variant));
        }
      }
    }

    const { stats } = client;
    process.stdout.write(
      [
        "# API client benchmark: NotificationHandlersClient vs bare undici",
        "",
        machineLine(),
        `Server: the reference server in this process (same event loop as the variants), ` +
          `${HANDLERS.toLocaleString("en-US")} handlers of ${HANDLER_TYPE_NAMES.length} types in SQLite (:memory:), rate limit off.`,
        `Transport: one keep-alive undici Agent per variant, same settings (keepAliveTimeout ` +
          `${AGENT_OPTIONS.keepAliveTimeout} ms, connect timeout ${AGENT_OPTIONS.connect.timeout} ms).`,
        `Answers: retrieve ${retrieveBytes} B, list page of 1000 ${Math.round(listBytes / 1024)} KiB.`,
        methodLine(measured),
        "",
        report(measured),
        "",
        `Client counters: ${stats.requests} requests, ${stats.retries} retries, ${stats.pacedMs} ms paced, ` +
          `${stats.rateLimited} rate-limited.`,
        `Total time: ${((performance.now() - started) / 1000).toFixed(1)} s; 1-minute load average ` +
          `${loadBefore} before, ${load()} after, on ${availableParallelism()} cores.`,
        "",
      ].join("\n"),
    );
  } finally {
    await client.close();
    await agent.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:api failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
