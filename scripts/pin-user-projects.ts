#!/usr/bin/env node
/**
 * `npm run pins:update`: moves the pins of every user's project the tests make to what the registries
 * serve now. Each npm project's `package-lock.json` is written again from its `package.json`, and
 * the Python example's `constraints.txt` from its `requirements.txt`: every package the requirements
 * bring in, at the version pip chooses now. The result is a commit of its own
 * (docs/development.md#pins).
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

import {
  mustRun,
  pipPins,
  PINNED_NPM_PROJECTS,
  PINNED_PYTHON_PROJECTS,
  REPOSITORY_ROOT,
  scratchFolder,
} from "./user-project";

async function pinNpmProject(folder: string): Promise<void> {
  const dir = join(REPOSITORY_ROOT, folder);
  await rm(join(dir, "package-lock.json"), { force: true });
  await mustRun("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: dir,
    env: process.env,
  });
}

async function pinPythonProject(folder: string): Promise<void> {
  const dir = join(REPOSITORY_ROOT, folder);
  const requirements = (await readFile(join(dir, "requirements.txt"), "utf8"))
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => /^[A-Za-z0-9]/.test(line));
  const scratch = await scratchFolder("pins");
  try {
    await mustRun("python3", ["-m", "venv", "venv"], { cwd: scratch, env: process.env });
    const python = join(scratch, "venv", "bin", "python");
    await mustRun(python, ["-m", "pip", "install", "--quiet", ...requirements], {
      cwd: scratch,
      env: process.env,
    });
    const { stdout } = await mustRun(python, ["-m", "pip", "freeze", "--all", "--exclude", "pip"], {
      cwd: scratch,
      env: process.env,
    });
    const pins = [...pipPins(stdout)].sort(([a], [b]) => a.localeCompare(b));
    const lines = [
      "# Written by `npm run pins:update` from requirements.txt: every package it brings in, exact.",
      "# No hashes: pip checks them only when every requirement, each one it brings in included, has one",
      "# in a requirements file, and the SDK, installed from a folder, cannot.",
      ...pins.map(([name, version]) => `${name}==${version}`),
    ];
    await writeFile(join(dir, "constraints.txt"), `${lines.join("\n")}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const folder of PINNED_NPM_PROJECTS) {
    process.stdout.write(`${folder}/package-lock.json\n`);
    await pinNpmProject(folder);
  }
  for (const folder of PINNED_PYTHON_PROJECTS) {
    process.stdout.write(`${folder}/constraints.txt\n`);
    await pinPythonProject(folder);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`pins:update failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
