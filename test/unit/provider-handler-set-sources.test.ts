/** The file patterns of a handler set: `*`, `?`, `[...]` and `**`, files only, hidden files left out. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { matchFiles } from "../../provider/handler-sets/sources";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "patterns-"));
  await mkdir(join(root, "handlers", "teams", "payments"), { recursive: true });
  await mkdir(join(root, "handlers", "folder.yaml"));
  for (const file of [
    "x.yaml",
    "handlers/a.yaml",
    "handlers/b.yml",
    "handlers/c.yaml.bak",
    "handlers/.hidden.yaml",
    "handlers/teams/t.yaml",
    "handlers/teams/payments/p.yaml",
  ])
    await writeFile(join(root, file), "");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("matchFiles", () => {
  it.each([
    ["handlers/*.yaml", ["handlers/a.yaml"]],
    ["handlers/*.y?ml", ["handlers/a.yaml"]],
    ["handlers/[ab].*", ["handlers/a.yaml", "handlers/b.yml"]],
    ["handlers/[!a]*", ["handlers/b.yml", "handlers/c.yaml.bak"]],
    ["handlers/**/*.yaml", ["handlers/a.yaml", "handlers/teams/payments/p.yaml", "handlers/teams/t.yaml"]],
    ["handlers/.*.yaml", ["handlers/.hidden.yaml"]],
    ["./x.yaml", ["x.yaml"]],
    ["x.yaml", ["x.yaml"]],
    ["handlers/folder.yaml", []],
    ["missing/*.yaml", []],
    ["x.yaml/*", []],
  ])("%s", (pattern, files) => {
    expect(matchFiles(pattern, root)).toEqual(files);
  });

  it("takes an absolute pattern as it is", () => {
    expect(matchFiles(join(root, "handlers", "*.yml"), "/elsewhere")).toEqual([
      join(root, "handlers", "b.yml"),
    ]);
  });
});
