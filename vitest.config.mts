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
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          sequence: { groupOrder: 2 },
          testTimeout: 30_000, // 30 s: real servers and processes
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // After the others: each e2e file runs engines of its own, two files at a time.
          sequence: { groupOrder: 3 },
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 300_000, // 5 min: each test runs several engine operations
          hookTimeout: 120_000,
          maxWorkers: 2,
        },
      },
    ],
  },
});
