import { defineConfig } from "vitest/config";

const reporters = process.env.CI
  ? ["default", ["json", { outputFile: "test-results/vitest.json" }]]
  : ["default"];

export default defineConfig({
  test: {
    pool: "forks",
    reporters: reporters as never,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          testTimeout: 30_000, // 30 s: real servers and processes
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 300_000, // 5 min: each test runs several engine operations
          hookTimeout: 120_000,
          // Each file runs its own engines; two at a time fit two cores.
          maxWorkers: 2,
        },
      },
    ],
  },
});
