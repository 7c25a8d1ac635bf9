import { join } from "node:path";

import { defineConfig } from "vitest/config";

// `npm run release:check` alone: the release takes minutes to build, so `npm test` and CI leave these
// tests out (docs/releasing.md#checking-a-release).
export default defineConfig({
  root: join(import.meta.dirname, "..", ".."),
  test: {
    name: "release",
    include: ["test/release/**/*.test.ts"],
    pool: "forks",
    testTimeout: 600_000, // 10 min: the Go check compiles Pulumi's SDK the first time
    hookTimeout: 60_000,
  },
});
