/**
 * The README stays a page for users: at most 15 KB, with the two commands that set up and test a
 * clone. Its generated table is test/unit/generated.test.ts's.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

describe("README", () => {
  it("stays a README for users: at most 15 KB", () => {
    expect(statSync(join(ROOT, "README.md")).size).toBeLessThanOrEqual(15_360);
  });

  it("keeps the two commands that set up and test a clone", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("```sh\nnpm ci && npm run demo\nnpm test\n```");
  });
});
