#!/usr/bin/env node
/**
 * `npm run bench:engine`: what the provider costs under the Pulumi CLI, and what it asks of the
 * server.
 *
 * A project folder per provider, run with the CLI as a team runs it: `pulumi up --yes` creating N
 * handlers (`--handlers N`, default 100), `pulumi preview` and `pulumi up --yes` with nothing to
 * change (`--expect-no-changes`), and `pulumi destroy --yes`. The same program with a dynamic
 * provider that does nothing runs beside it, the two taking turns at each step, round after round
 * (`--rounds N`, default 3). It prints each round, then the medians: wall time, the requests the
 * reference server (rate limit off) served with their floor, the no-op's time and the ratio (the
 * median of the rounds' ratios). Then where the time goes: the CPU time of each process during each
 * step (the engine, the dynamic-provider process, the program, the language host, the server),
 * read from /proc on Linux.
 *
 * `--yaml` runs a Pulumi YAML program of the same N handlers through the provider plugin instead,
 * beside a no-op plugin built the same way (`noop-plugin.ts`): the same steps, rounds and tables, the
 * CPU time split between the engine, the plugin, the YAML language host and the server. The programs
 * of each mode are in `engine-modes.ts`.
 *
 * `--parallel 12,16,32` adds the requests of a create-up and a destroy at those parallelisms;
 * `--rate-limited` the create-up of 100 against the emulated 60 requests a minute of deployed
 * instances (about a minute). `--cpu-prof DIR` writes a CPU profile of every dynamic-provider and
 * program process into DIR, and the engine's own (`pulumi --profiling`, read with `go tool pprof`);
 * the figures then include the profilers' cost.
 *
 * It prints figures and never fails on a missed target.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

import { type Engine, enginePath, ensureEngine } from "../scripts/engine/engine";
import { mustRun } from "../scripts/support/user-project";
import { loadAverage, out } from "./measure";
import { type CountingServer, type Served, startCountingServer } from "./counting-server";
import { PROFILE_DIR_ENV, PROFILE_LABEL_ENV } from "./cpu-profile-hook";
import {
  type Config,
  type CpuTimes,
  type Kind,
  type Mode,
  type ProjectSpec,
  TYPESCRIPT,
  yamlMode,
} from "./engine-modes";
import { DescendantCpu, canMeasureDescendants } from "./process-cpu";
import { installTarball, packCheckout, packRevision } from "./installs";
import { buildPluginFolders } from "./yaml-project";
import { MAX_RESULTS_PER_PAGE } from "../sdk/client/domain/list-rules";

const ROOT = resolve(__dirname, "..", "..");
const DEFAULT_HANDLERS = 100;
const DEFAULT_ROUNDS = 3;
/** The handlers of the rate-limited up: at 60 requests a minute, more would take many minutes. */
const RATE_LIMITED_HANDLERS = 100;
/** The longest one command may take: thousands of creates on a busy machine take many minutes. */
const COMMAND_TIMEOUT_MS = 3 * 60 * 60 * 1000; // 3 h

type Step = "create" | "preview" | "up" | "destroy";

const STEPS: readonly Step[] = ["create", "preview", "up", "destroy"];
const STEP_LABEL: Record<Step, string> = {
  create: "up (creates)",
  preview: "preview, no change",
  up: "up, no change",
  destroy: "destroy",
};
/** The CLI's arguments of each step; the no-change steps fail if the engine finds a change. */
const STEP_ARGS: Record<Step, string[]> = {
  create: ["up", "--yes"],
  preview: ["preview", "--expect-no-changes"],
  up: ["up", "--yes", "--expect-no-changes"],
  destroy: ["destroy", "--yes"],
};

/** What one command measured. */
interface StepRun {
  ms: number;
  served: Served;
  cpu: CpuTimes | undefined;
}

interface Options {
  yaml: boolean;
  handlers: number;
  rounds: number;
  parallel: number[];
  rateLimited: boolean;
  cpuProfileDir: string | undefined;
  /** A revision whose package runs beside this checkout's (`--baseline REV`). */
  baseline: string | undefined;
}

function options(argv: string[]): Options {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const count = (name: string, fallback: number): number => {
    const raw = value(name);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} takes a whole number (got ${raw})`);
    return n;
  };
  const profileDir = value("--cpu-prof");
  const yaml = argv.includes("--yaml");
  // The hook is preloaded into Node.js processes; the plugins are single executables.
  if (yaml && profileDir !== undefined)
    throw new Error("--cpu-prof profiles the TypeScript mode only, not --yaml");
  return {
    yaml,
    handlers: Math.max(1, count("--handlers", DEFAULT_HANDLERS)),
    rounds: count("--rounds", DEFAULT_ROUNDS),
    parallel: (value("--parallel") ?? "")
      .split(",")
      .filter((p) => p !== "")
      .map(Number),
    rateLimited: argv.includes("--rate-limited"),
    cpuProfileDir: profileDir === undefined ? undefined : resolve(profileDir),
    baseline: value("--baseline"),
  };
}

/** A Pulumi project folder with one stack, its backend and Pulumi home in a temporary folder. */
interface Project {
  /** Runs the CLI in the project; resolves with its wall time in milliseconds. */
  run(args: string[], env?: Record<string, string>): Promise<number>;
  stateBytes(): Promise<number>;
  dispose(): Promise<void>;
}

async function createProject(engine: Engine, spec: ProjectSpec, parent: string): Promise<Project> {
  // Inside the kind's install, so that a TypeScript program and the dynamic-provider process resolve
  // @pulumi/pulumi and the package from its node_modules.
  const dir = join(parent, `bench-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  const home = await mkdtemp(join(tmpdir(), "notification-handlers-bench-"));
  const backend = join(home, "state");
  await mkdir(backend);
  for (const [name, text] of Object.entries(spec.files)) await writeFile(join(dir, name), text);
  const baseEnv: NodeJS.ProcessEnv = { ...process.env };
  delete baseEnv.NODE_OPTIONS;
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    PATH: [...enginePath(engine), process.env.PATH ?? ""].join(delimiter),
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "bench-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    NOTIFICATION_HANDLERS_BASE_URL: "",
    NOTIFICATION_HANDLERS_API_KEY: "",
  };
  const pulumi = join(engine.binDir, "pulumi");
  const run = async (args: string[], extra: Record<string, string> = {}): Promise<number> => {
    const started = performance.now();
    await mustRun(pulumi, [...args, "--non-interactive"], {
      cwd: dir,
      env: { ...env, ...extra },
      timeoutMs: COMMAND_TIMEOUT_MS,
    });
    return performance.now() - started;
  };
  await run(["stack", "init", "dev"]);
  for (const [key, value] of Object.entries(spec.config)) {
    const args = typeof value === "string" ? [value] : [value.secret, "--secret"];
    await run(["config", "set", key, ...args]);
  }
  return {
    run,
    stateBytes: async () =>
      Buffer.byteLength(await readFile(join(backend, ".pulumi", "stacks", "bench", "dev.json"))),
    async dispose() {
      await rm(dir, { recursive: true, force: true });
      await rm(home, { recursive: true, force: true });
    },
  };
}

const providerConfig = (url: string, key: string, strategy = "in-place"): Config => ({
  "notification-handlers:baseUrl": url,
  "notification-handlers:apiKey": { secret: key },
  "notification-handlers:updateStrategy": strategy,
});

/** Runs one step of a project, measuring its wall time, the server's requests and the CPU time. */
async function timedStep(
  project: Project,
  args: string[],
  server: CountingServer,
  env: Record<string, string>,
): Promise<StepRun> {
  await server.take();
  const serverBefore = await server.cpuMs();
  const descendants = canMeasureDescendants() ? new DescendantCpu(new Set([server.pid])) : undefined;
  const ms = await project.run(args, env);
  const cpu = descendants?.stop();
  const serverMs = (await server.cpuMs()) - serverBefore;
  const served = await server.take();
  return { ms, served, cpu: cpu === undefined ? undefined : { ...cpu, server: serverMs } };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** The engine's default parallelism: 4 operations per core. */
const defaultParallel = (): number => 4 * availableParallelism();

/**
 * The fewest requests of a step while each engine operation waits for its own check: N writes, one
 * list per wave of P operations, and for creates the account snapshot (one list of an empty account);
 * a no-change preview reads the snapshot, a no-change up reads it twice (its preview, then the update).
 */
function floorOf(step: Step, n: number, parallel: number): number {
  const snapshot = Math.ceil(n / MAX_RESULTS_PER_PAGE);
  switch (step) {
    case "create":
      return n + Math.ceil(n / parallel) + 1;
    case "destroy":
      return n + Math.ceil(n / parallel);
    case "preview":
      return snapshot;
    case "up":
      return 2 * snapshot;
  }
}

/** What a run measures: the kinds side by side, each in the folder its projects are made in. */
interface Setup {
  engine: Engine;
  mode: Mode;
  server: CountingServer;
  /** The kinds that run, the no-op last; the baseline only with `--baseline`. */
  kinds: readonly Kind[];
  /** Each kind's column heading. */
  label: Record<Kind, string>;
  /** The folder each kind's projects are made in. */
  parent: Record<Kind, string>;
}

/** The kinds measured against the no-op. */
const measured = (setup: Setup): Kind[] => setup.kinds.filter((k) => k !== "noop");

async function overhead(setup: Setup, opts: Options): Promise<void> {
  const { engine, mode, server, kinds, label } = setup;
  const n = opts.handlers;
  const runs = Object.fromEntries(
    kinds.map((kind) => [kind, { create: [], preview: [], up: [], destroy: [] }]),
  ) as unknown as Record<Kind, Record<Step, StepRun[]>>;
  const ratios = Object.fromEntries(
    kinds.map((kind) => [kind, { create: [], preview: [], up: [], destroy: [] }]),
  ) as unknown as Record<Kind, Record<Step, number[]>>;
  const stateBytes: Partial<Record<Kind, number>> = {};
  const columns = measured(setup);
  out(
    `## The CLI, ${n} handlers: ${mode.heading}, ${opts.rounds} rounds\n\n` +
      `load average at the start ${loadAverage()}\n\n` +
      `| round | step | ${columns.map((k) => `${label[k]} | requests | ratio`).join(" | ")} | ${label.noop} | load (1 min) |\n` +
      `|---|---|${columns.map(() => "---|---|---|").join("")}---|---|\n`,
  );
  for (let round = 1; round <= opts.rounds; round++) {
    // Taking turns at going first, so drift in the machine's speed falls on all alike.
    const shift = (round - 1) % kinds.length;
    const order = [...kinds.slice(shift), ...kinds.slice(0, shift)];
    const projects: Partial<Record<Kind, Project>> = {};
    try {
      for (const kind of kinds) {
        const config = providerConfig(server.url, await server.newKey());
        projects[kind] = await createProject(engine, mode.make(kind, n, config), setup.parent[kind]);
      }
      for (const step of STEPS) {
        for (const kind of order) {
          const profiled = `${kind}-${step}-round${round}`;
          const env =
            opts.cpuProfileDir === undefined
              ? {}
              : {
                  NODE_OPTIONS: `--require ${JSON.stringify(join(__dirname, "cpu-profile-hook.js"))}`,
                  [PROFILE_DIR_ENV]: opts.cpuProfileDir,
                  [PROFILE_LABEL_ENV]: profiled,
                };
          const args =
            opts.cpuProfileDir === undefined
              ? STEP_ARGS[step]
              : [...STEP_ARGS[step], "--profiling", join(opts.cpuProfileDir, `${profiled}-engine`)];
          const project = projects[kind]!;
          runs[kind][step].push(await timedStep(project, args, server, env));
          if (step === "create" && round === 1) stateBytes[kind] = await project.stateBytes();
        }
        const q = runs.noop[step].at(-1)!;
        const cells = columns.map((kind) => {
          const p = runs[kind][step].at(-1)!;
          ratios[kind][step].push(p.ms / q.ms);
          return `${seconds(p.ms)} | ${p.served.total} | ${(p.ms / q.ms).toFixed(2)}x`;
        });
        out(
          `| ${round} | ${STEP_LABEL[step]} | ${cells.join(" | ")} | ${seconds(q.ms)} | ` +
            `${loadavg()[0]?.toFixed(2)} |\n`,
        );
      }
    } finally {
      for (const project of Object.values(projects)) await project.dispose();
    }
  }
  if (opts.rounds === 0) return;

  const parallel = defaultParallel();
  out(
    `\n### Medians of ${opts.rounds} rounds (load average at the end ${loadAverage()})\n\n` +
      `Requests counted at the server (the median; lists, reads and writes of the median round); the floor ` +
      `at the engine's default parallelism of ${parallel} (4 per core).\n\n` +
      `| handlers | step | provider | time | requests | lists / reads / writes | floor | ${label.noop} | ratio |\n` +
      `|---|---|---|---|---|---|---|---|---|\n`,
  );
  const wall = (kind: Kind, step: Step): number => median(runs[kind][step].map((r) => r.ms));
  for (const step of STEPS) {
    for (const kind of columns) {
      const mine = runs[kind][step];
      const requests = median(mine.map((r) => r.served.total));
      const typical = mine.find((r) => r.served.total === requests) ?? mine[0];
      const split =
        typical === undefined
          ? ""
          : `${typical.served.lists} / ${typical.served.reads} / ${typical.served.writes}`;
      out(
        `| ${n} | ${STEP_LABEL[step]} | ${label[kind]} | ${seconds(wall(kind, step))} | ${requests} | ${split} | ` +
          `${floorOf(step, n, parallel)} | ${seconds(wall("noop", step))} | ${median(ratios[kind][step]).toFixed(2)}x |\n`,
      );
    }
  }
  const kb = (bytes: number | undefined): string => `${((bytes ?? 0) / n / 1024).toFixed(1)} KB`;
  out(`\nstate file per resource: ${kinds.map((k) => `${kb(stateBytes[k])} with ${label[k]}`).join(", ")}\n`);
  cpuTables(setup, runs, opts.rounds);
}

function cpuTables(setup: Setup, runs: Record<Kind, Record<Step, StepRun[]>>, rounds: number): void {
  const { mode, kinds, label } = setup;
  if (STEPS.some((step) => kinds.some((kind) => runs[kind][step].some((r) => r.cpu === undefined)))) {
    out("\nCPU time per process: not measured (no /proc on this system)\n");
    return;
  }
  out(
    `\n### Where the time goes: CPU time of each process during each step (median of ${rounds}; ` +
      `${availableParallelism()} cores)\n`,
  );
  const columns = measured(setup);
  for (const step of STEPS) {
    const cpu = (kind: Kind, row: keyof CpuTimes): number =>
      median(runs[kind][step].map((r) => r.cpu?.[row] ?? 0));
    const total = (kind: Kind): number =>
      median(runs[kind][step].map((r) => mode.cpuRows.reduce((sum, [row]) => sum + (r.cpu?.[row] ?? 0), 0)));
    out(
      `\n${STEP_LABEL[step]}:\n\n| process | ${columns.map((k) => `${label[k]} | difference`).join(" | ")} | ${label.noop} |\n` +
        `|---|${columns.map(() => "---|---|").join("")}---|\n`,
    );
    const line = (name: string, of: (kind: Kind) => number): void => {
      const q = of("noop");
      const cells = columns.map((kind) => {
        const p = of(kind);
        return `${seconds(p)} | ${p - q >= 0 ? "+" : ""}${seconds(p - q)}`;
      });
      out(`| ${name} | ${cells.join(" | ")} | ${seconds(q)} |\n`);
    };
    for (const [row, name] of mode.cpuRows) line(name, (kind) => cpu(kind, row));
    line("all of them", total);
  }
}

/** Requests of a create-up and a destroy at other parallelisms, beside the floor at each. */
async function parallelism(setup: Setup, opts: Options): Promise<void> {
  const { engine, mode, server } = setup;
  const n = opts.handlers;
  out(
    `\n## Requests at other parallelisms, ${n} handlers\n\n` +
      `| step | --parallel | requests | lists | reads | writes | floor |\n|---|---|---|---|---|---|---|\n`,
  );
  for (const p of opts.parallel) {
    const config = providerConfig(server.url, await server.newKey());
    const project = await createProject(engine, mode.make("provider", n, config), setup.parent.provider);
    try {
      for (const step of ["create", "destroy"] as const) {
        await server.take();
        await project.run([...STEP_ARGS[step], "--parallel", String(p)]);
        const c = await server.take();
        out(
          `| ${STEP_LABEL[step]} | ${p} | ${c.total} | ${c.lists} | ${c.reads} | ${c.writes} | ` +
            `${floorOf(step, n, p)} |\n`,
        );
      }
    } finally {
      await project.dispose();
    }
  }
}

async function rateLimitedUp(setup: Omit<Setup, "server">): Promise<void> {
  const { engine, mode } = setup;
  const n = RATE_LIMITED_HANDLERS;
  const limited = await startCountingServer(60, "2026");
  try {
    const config = providerConfig(limited.url, await limited.newKey(), "replace");
    const project = await createProject(engine, mode.make("provider", n, config), setup.parent.provider);
    try {
      const ms = await project.run(STEP_ARGS.create);
      const c = await limited.take();
      out(
        `\n## Up of ${n} against the emulated limit of 60 requests a minute\n\n` +
          `${c.total} requests in ${seconds(ms)} (floor ${floorOf("create", n, defaultParallel())})\n`,
      );
    } finally {
      await project.dispose();
    }
  } finally {
    await limited.close();
  }
}

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const log = (l: string): void => {
    process.stderr.write(`[bench] ${l}\n`);
  };
  const engine = await ensureEngine({ projectRoot: ROOT, log, yaml: opts.yaml });
  if (opts.cpuProfileDir !== undefined) await mkdir(opts.cpuProfileDir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), "notification-handlers-bench-"));
  const baselinePlugin =
    opts.yaml && opts.baseline !== undefined ? await packRevision(opts.baseline, "plugin", log) : undefined;
  const plugins = opts.yaml ? await buildPluginFolders(baselinePlugin) : undefined;
  try {
    const mode = plugins === undefined ? TYPESCRIPT : yamlMode(plugins);
    const label = { ...mode.label };
    const parent: Record<Kind, string> = { provider: work, baseline: work, noop: work };
    if (plugins === undefined) {
      // The dynamic provider runs each package as installed from its tarball (see installs.ts).
      const current = await installTarball(await packCheckout(work), work, "current");
      parent.provider = parent.noop = current.dir;
      label.provider = `this checkout (${current.version})`;
      if (opts.baseline !== undefined) {
        const baseline = await installTarball(
          await packRevision(opts.baseline, "package", log),
          work,
          "baseline",
        );
        parent.baseline = baseline.dir;
        label.baseline = `${opts.baseline} (${baseline.version})`;
      }
    } else if (opts.baseline !== undefined) {
      label.baseline = `${opts.baseline}'s plugin`;
    }
    const kinds: Kind[] =
      opts.baseline === undefined ? ["provider", "noop"] : ["provider", "baseline", "noop"];
    const server = await startCountingServer(0);
    const setup: Setup = { engine, mode, server, kinds, label, parent };
    try {
      if (opts.rounds > 0) await overhead(setup, opts);
      if (opts.parallel.length > 0) await parallelism(setup, opts);
    } finally {
      await server.close();
    }
    if (opts.rateLimited) await rateLimitedUp(setup);
  } finally {
    await plugins?.dispose();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
