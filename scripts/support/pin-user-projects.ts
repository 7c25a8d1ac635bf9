#!/usr/bin/env node
/**
 * `npm run pins:update`: moves the pins of every user's project the tests make to what the registries
 * serve now. Each npm project's `package-lock.json` is written again from its `package.json`, and
 * the Python example's `constraints.txt` from its `requirements.txt`: every package the requirements
 * bring in, at the version pip chooses now, the project's SDK installed from sources generated at
 * package.json's version. The Go example's and template's `go.sum` get the sums of the Go SDK at
 * package.json's version as the release tags it (scripts/release/go-tag.ts): generated now, committed
 * and tagged in a throwaway clone, and fetched from there by the go command, which computes them
 * from the tag as it does from GitHub's (they change with the schema or the generator:
 * `npm run pins:update -- --go-sdk` writes them alone); its other lines move only with `go get` or
 * `go mod tidy`. `--project FOLDER` writes one project's pins alone. The result is a commit of its own
 * (docs/development.md#pins).
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { packageVersion } from "../release/build-plugin";
import { generateSdks } from "../release/build-sdks";
import { PYTHON_PACKAGE } from "../release/release";
import { GO_SDK_MODULE, goSdkFromRepository, tagGoSdk } from "../release/go-tag";
import {
  mustRun,
  PACKAGES,
  pipPins,
  PINNED_NPM_PROJECTS,
  PINNED_PYTHON_PROJECTS,
  REPOSITORY_ROOT,
  scratchFolder,
} from "./user-project";

async function pinNpmProject(folder: string): Promise<void> {
  const dir = join(REPOSITORY_ROOT, folder);
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Manifest;
  const named = { ...manifest.dependencies, ...manifest.devDependencies };
  if (Object.keys(PACKAGES).some((name) => named[name] === packageVersion()))
    return pinReleaseProject(dir, manifest);
  await rm(join(dir, "package-lock.json"), { force: true });
  await mustRun("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: dir,
    env: process.env,
  });
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface Lockfile {
  name: string;
  packages: Record<
    string,
    {
      name?: string;
      dependencies?: Record<string, string> | undefined;
      devDependencies?: Record<string, string> | undefined;
      resolved?: string;
    }
  >;
}

/**
 * A project that takes this project's packages at the release's version from the registry (an
 * example, a template): the lockfile is written from the checkout's packages, then made to name them
 * as the registry will serve them, by version only, before the release is there to ask.
 */
async function pinReleaseProject(dir: string, manifest: Manifest): Promise<void> {
  const scratch = await scratchFolder("pins-release");
  try {
    // npm refuses the template's `${PROJECT}` as a name.
    const fromCheckout = { ...structuredClone(manifest), name: "template" };
    for (const deps of [fromCheckout.dependencies, fromCheckout.devDependencies])
      for (const [name, folder] of Object.entries(PACKAGES))
        if (deps?.[name] !== undefined) deps[name] = `file:${join(REPOSITORY_ROOT, folder)}`;
    await writeFile(join(scratch, "package.json"), JSON.stringify(fromCheckout));
    await writeFile(join(scratch, ".npmrc"), "install-links=true\n");
    await mustRun("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: scratch,
      env: process.env,
    });
    const lock = JSON.parse(await readFile(join(scratch, "package-lock.json"), "utf8")) as Lockfile;
    lock.name = manifest.name;
    lock.packages[""] = {
      ...lock.packages[""],
      name: manifest.name,
      dependencies: manifest.dependencies,
      devDependencies: manifest.devDependencies,
    };
    for (const name of Object.keys(PACKAGES)) delete lock.packages[`node_modules/${name}`]?.resolved;
    await writeFile(join(dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The SDK is installed from its sources, generated now at package.json's version: the release
 * publishes it, and whoever holds its name on PyPI until then must not write the pins. What it and
 * the other requirements bring in comes from PyPI.
 */
async function pinPythonProject(folder: string): Promise<void> {
  const dir = join(REPOSITORY_ROOT, folder);
  const requirements = (await readFile(join(dir, "requirements.txt"), "utf8"))
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => /^[A-Za-z0-9]/.test(line));
  const version = packageVersion();
  const sdkVersion = pipPins(requirements.join("\n")).get(PYTHON_PACKAGE);
  if (sdkVersion !== undefined && sdkVersion !== version)
    throw new Error(
      `${folder}/requirements.txt asks for ${PYTHON_PACKAGE}==${sdkVersion}, where package.json's version is ${version}`,
    );
  const scratch = await scratchFolder("pins");
  try {
    const others = requirements.filter((line) => !pipPins(line).has(PYTHON_PACKAGE));
    if (sdkVersion !== undefined) {
      const sdk = join(scratch, "sdk");
      await generateSdks({ outDir: sdk, toolsDir: join(REPOSITORY_ROOT, "dist", "tools"), version });
      others.push(join(sdk, "python"));
    }
    await mustRun("python3", ["-m", "venv", "venv"], { cwd: scratch, env: process.env });
    const python = join(scratch, "venv", "bin", "python");
    await mustRun(python, ["-m", "pip", "install", "--quiet", ...others], {
      cwd: scratch,
      env: process.env,
    });
    const { stdout } = await mustRun(
      python,
      ["-m", "pip", "freeze", "--all", "--exclude", "pip", "--exclude", PYTHON_PACKAGE],
      { cwd: scratch, env: process.env },
    );
    const pins = pipPins(stdout);
    if (sdkVersion !== undefined) pins.set(PYTHON_PACKAGE, sdkVersion);
    const lines = [
      "# Written by `npm run pins:update` from requirements.txt: every package it brings in, exact.",
      "# No hashes: pip checks them only when every package it installs has one, and the SDK's wheel",
      "# is built anew for each release.",
      ...[...pins].sort(([a], [b]) => a.localeCompare(b)).map(([name, pin]) => `${name}==${pin}`),
    ];
    await writeFile(join(dir, "constraints.txt"), `${lines.join("\n")}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The Go projects whose go.sum holds the SDK's sums. */
const GO_PROJECTS = ["examples/go", "templates/go"];

async function pinGoSdkSums(folder: string): Promise<void> {
  const version = packageVersion();
  const scratch = await scratchFolder("pins-go");
  try {
    const sdk = join(scratch, "sdk");
    await generateSdks({ outDir: sdk, toolsDir: join(REPOSITORY_ROOT, "dist", "tools"), version });
    const repository = join(scratch, "repository.git");
    await mustRun("git", ["clone", "--quiet", "--bare", "--shared", REPOSITORY_ROOT, repository], {
      cwd: scratch,
      env: process.env,
    });
    await tagGoSdk({ repository, sdkGo: join(sdk, "go"), version });
    // A module cache of its own, writable so that it goes with the scratch folder.
    const env = {
      ...process.env,
      ...goSdkFromRepository(repository),
      GOMODCACHE: join(scratch, "modules"),
      GOFLAGS: "-modcacherw",
    };
    const { stdout } = await mustRun("go", ["mod", "download", "-json", `${GO_SDK_MODULE}@v${version}`], {
      cwd: scratch,
      env,
    });
    const { Sum, GoModSum } = JSON.parse(stdout) as { Sum: string; GoModSum: string };
    const file = join(REPOSITORY_ROOT, folder, "go.sum");
    const lines = (await readFile(file, "utf8"))
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith(`${GO_SDK_MODULE} `));
    // In the go command's order: by module path.
    const at = lines.findIndex((line) => line.split(" ")[0]! > GO_SDK_MODULE);
    lines.splice(
      at === -1 ? lines.length : at,
      0,
      `${GO_SDK_MODULE} v${version} ${Sum}`,
      `${GO_SDK_MODULE} v${version}/go.mod ${GoModSum}`,
    );
    await writeFile(file, `${lines.join("\n")}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // `--go-sdk`: the Go SDK's sums alone, which a change of the schema or the generator moves.
  // `--project FOLDER`: that project's pins alone.
  const { values } = parseArgs({ options: { "go-sdk": { type: "boolean" }, project: { type: "string" } } });
  if (values["go-sdk"] === true) return pinGoProjects();
  if (values.project !== undefined) return pinOneProject(values.project);
  for (const folder of PINNED_NPM_PROJECTS) {
    process.stdout.write(`${folder}/package-lock.json\n`);
    await pinNpmProject(folder);
  }
  for (const folder of PINNED_PYTHON_PROJECTS) {
    process.stdout.write(`${folder}/constraints.txt\n`);
    await pinPythonProject(folder);
  }
  await pinGoProjects();
}

async function pinOneProject(folder: string): Promise<void> {
  const known = [...PINNED_NPM_PROJECTS, ...PINNED_PYTHON_PROJECTS, ...GO_PROJECTS] as string[];
  if (!known.includes(folder))
    throw new Error(`${folder} is none of the pinned projects: ${known.join(", ")}`);
  if ((PINNED_NPM_PROJECTS as readonly string[]).includes(folder)) await pinNpmProject(folder);
  if ((PINNED_PYTHON_PROJECTS as readonly string[]).includes(folder)) await pinPythonProject(folder);
  if (GO_PROJECTS.includes(folder)) await pinGoSdkSums(folder);
}

async function pinGoProjects(): Promise<void> {
  for (const folder of GO_PROJECTS) {
    process.stdout.write(`${folder}/go.sum (the Go SDK's lines)\n`);
    await pinGoSdkSums(folder);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`pins:update failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
