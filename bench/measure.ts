/**
 * Timing and statistics for the benchmarks: run a call a fixed number of times with a fixed number
 * in flight, record each call's latency, and summarize as throughput and percentiles.
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";

/** The 1, 5 and 15 minute load averages, as the reports print them. */
export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** Writes report text to stdout. */
export const out = (text: string): void => {
  process.stdout.write(text);
};

/** What one timed run recorded. */
interface RunResult {
  /** Wall time from the first call's start to the last call's end, in milliseconds. */
  readonly elapsedMs: number;
  /** One latency per call, in milliseconds, in call order. */
  readonly latenciesMs: Float64Array;
  /** CPU time this process spent during the run (user + system), in milliseconds. */
  readonly cpuMs: number;
}

/** A run reduced to the figures the report prints. */
export interface Summary {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /**
   * CPU time per call, in microseconds. Other processes on the machine slow the wall clock far more
   * than they change this, so it shows the cost of a variant even when throughput is noisy.
   */
  readonly cpuMicrosPerCall: number;
}

/**
 * Calls `call(i)` for every i in [0, count), keeping at most `concurrency` calls in flight. Workers
 * pull the next index from a shared counter, so a slow call delays only its own worker; with a
 * concurrency of 1 this is a plain sequential loop.
 */
export async function run(
  count: number,
  concurrency: number,
  call: (i: number) => Promise<unknown>,
): Promise<RunResult> {
  const latenciesMs = new Float64Array(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const started = performance.now();
      await call(i);
      latenciesMs[i] = performance.now() - started;
    }
  };
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  const cpu = process.cpuUsage(cpuStarted);
  return { elapsedMs: performance.now() - started, latenciesMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** The nearest-rank percentile `p` (0 to 100) of `sorted`, which must be in ascending order. */
function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Throughput and p50/p99 latency of a run. */
export function summarize(result: RunResult): Summary {
  const sorted = Float64Array.from(result.latenciesMs).sort();
  return {
    requestsPerSecond: (result.latenciesMs.length * 1000) / result.elapsedMs,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    cpuMicrosPerCall: (result.cpuMs * 1000) / result.latenciesMs.length,
  };
}

/** The index of the median of `values` (of the lower middle one for an even count); -1 when empty. */
export function medianIndex(values: readonly number[]): number {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0));
  return order[Math.floor((order.length - 1) / 2)] ?? -1;
}

/**
 * A small seeded generator (mulberry32) returning numbers in [0, 1): both variants must ask for the
 * same ids in the same order, run after run, so neither gets a luckier access pattern.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
