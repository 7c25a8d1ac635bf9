import { availableParallelism } from "node:os";
import { join, relative } from "node:path";

import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { findPostgresBin } from "./scripts/support/postgres.js";
import { projectCache } from "./scripts/support/project-cache.js";

// Node.js's on-disk compile cache, for every process the tests start (servers, the Pulumi CLI's
// programs and providers, users' commands): each loads @pulumi/pulumi again, and compiling it took
// about a sixth of a preview's CPU. It changes how fast code loads, nothing else.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, "node_modules", ".cache", "node-compile-cache");

/**
 * Each group's files longest first, by the durations of earlier runs (vitest's results cache, kept in
 * the user's cache folder, so that a fresh clone on the same machine has them too), whatever their
 * project: a long file started last keeps the run going while the other workers idle. As vitest
 * orders them: failed ones first, and files of no known duration before the others, larger first.
 */
class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification): number[] => {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`;
      const known = this.ctx.cache.getFileTestResults(key);
      const group = spec.project.config.sequence.groupOrder;
      if (known === undefined) return [group, 0, 0, -(this.ctx.cache.getFileStats(key)?.size ?? 0)];
      return [group, known.failed ? 0 : 1, 1, -known.duration];
    };
    const ranked = files.map((spec) => ({ spec, rank: rank(spec) }));
    const compare = (a: number[], b: number[]): number =>
      a.reduce((order, value, i) => order || value - (b[i] ?? 0), 0);
    return Promise.resolve(ranked.sort((a, b) => compare(a.rank, b.rank)).map((r) => r.spec));
  }
}

const reporters = process.env.CI
  ? ["default", ["json", { outputFile: "test-results/vitest.json" }]]
  : ["default"];

// The test files of a worker share its loaded modules: loading them again for every file took most
// of the unit and integration time. Not for e2e: its programs run @pulumi/pulumi's runtime in the
// worker, and its global state must not pass from one file to the next.
const isolate = false;

/**
 * The tests that run again against PostgreSQL: the store's contract and the server's HTTP suite. The
 * client and provider suites run once: the store behind the server changes nothing they prove. Left
 * out: what is about SQLite's own file (persistence, schema upgrades, the CLI over files), and the
 * emulation of deployed versions, which reaches the store only through the contract's operations.
 */
const POSTGRES_FILES = ["test/integration/server-*.test.ts"];
const NOT_ON_POSTGRES = [
  "test/integration/server-persistence.test.ts",
  "test/integration/server-sqlite-store.test.ts",
  "test/integration/server-emulate-*.test.ts",
  "test/integration/server-cli.test.ts",
];

// Without the server binaries the PostgreSQL project is left out, loudly; under CI it stays in and
// its set-up fails, so a CI run never passes without having run it.
const postgres = findPostgresBin();
if ("missing" in postgres && !process.env.CI) {
  process.stderr.write(`\n*** integration-postgres left out: ${postgres.missing} ***\n\n`);
}
const postgresProjects =
  "missing" in postgres && !process.env.CI
    ? []
    : [
        {
          test: {
            name: "integration-postgres",
            isolate,
            include: POSTGRES_FILES,
            exclude: NOT_ON_POSTGRES,
            sequence: { groupOrder: 1 }, // beside the unit and SQLite tests
            globalSetup: ["test/support/servers/postgres-global-setup.ts"],
            testTimeout: 30_000, // 30 s: real servers and processes
            hookTimeout: 60_000,
          },
        },
      ];

export default defineConfig({
  // Vite's cache, and in it vitest's results cache, whose durations order the files (LongestFirst).
  cacheDir: projectCache("vite"),
  test: {
    pool: "forks",
    sequence: { sequencer: LongestFirst },
    // One more than the cores: the tests wait on servers, processes and timeouts, and fewer workers
    // left a core idle.
    maxWorkers: availableParallelism() + 1,
    reporters: reporters as never,
    projects: [
      {
        test: {
          name: "unit",
          isolate,
          include: ["test/unit/**/*.test.ts"],
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "integration",
          isolate,
          include: ["test/integration/**/*.test.ts"],
          exclude: ["test/integration/server-postgres*.test.ts"],
          sequence: { groupOrder: 1 },
          testTimeout: 30_000, // 30 s: real servers and processes
          hookTimeout: 60_000,
        },
      },
      ...postgresProjects,
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // After the others: each file runs engines of its own (inline programs, or the Pulumi CLI
          // in project folders on the user's path).
          sequence: { groupOrder: 2 },
          globalSetup: ["test/support/engine/e2e-global-setup.ts"],
          // As many as the cores: the engines keep them busy, and a third file at once gained nothing.
          maxWorkers: availableParallelism(),
          testTimeout: 300_000, // 5 min: each test runs several engine operations
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
