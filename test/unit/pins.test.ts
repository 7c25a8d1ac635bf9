/**
 * The pins of the user's projects the tests make (docs/development.md#pins): every example with a
 * package.json has a lockfile, each lockfile pins what its package.json asks for, and each Python
 * project's constraints pin its requirements. That an install installs what they pin is checked at
 * each install, on the user's path.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import {
  PINNED_NPM_PROJECTS,
  PINNED_PYTHON_PROJECTS,
  pipPins,
  REPOSITORY_ROOT,
} from "../../scripts/support/user-project";

const read = (path: string): string => readFileSync(join(REPOSITORY_ROOT, path), "utf8");

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

describe("the pins of the user's projects (npm run pins:update)", () => {
  it("covers every example with a package.json", () => {
    const examples = readdirSync(join(REPOSITORY_ROOT, "examples"))
      .map((name) => `examples/${name}`)
      .filter((folder) => existsSync(join(REPOSITORY_ROOT, folder, "package.json")));
    expect(examples.length).toBeGreaterThan(0);
    expect(PINNED_NPM_PROJECTS).toEqual(expect.arrayContaining(examples));
  });

  it.each(PINNED_NPM_PROJECTS)("%s: the lockfile pins what package.json asks for", (folder) => {
    const manifest = JSON.parse(read(`${folder}/package.json`)) as Manifest;
    const lock = JSON.parse(read(`${folder}/package-lock.json`)) as { packages: Record<string, Manifest> };
    const root = lock.packages[""];
    expect(root?.dependencies ?? {}).toEqual(manifest.dependencies ?? {});
    expect(root?.devDependencies ?? {}).toEqual(manifest.devDependencies ?? {});
  });

  it("gives the Go template the Go example's sums, which pins:update writes to both", () => {
    expect(read("templates/go/go.sum")).toBe(read("examples/go/go.sum"));
  });

  it.each(PINNED_PYTHON_PROJECTS)("%s: the constraints pin each requirement at its version", (folder) => {
    const requirements = pipPins(read(`${folder}/requirements.txt`));
    const constraints = pipPins(read(`${folder}/constraints.txt`));
    expect(requirements.size).toBeGreaterThan(0);
    for (const [name, version] of requirements) expect(constraints.get(name), name).toBe(version);
  });
});

describe("the release workflow's actions", () => {
  it("are each pinned to a commit, a tag being movable", () => {
    const uses = [...read(".github/workflows/release.yml").matchAll(/^\s*-?\s*uses:\s*(\S+)/gm)].map(
      (m) => m[1],
    );
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action, action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });
});
