/**
 * What `npm run release` builds with besides the repository's own dependencies, each installed by
 * package name at a pinned version and kept in the user's cache folder
 * (`~/.cache/pulumi-notification-handlers/release/`), so that a second release fetches nothing:
 * the Node.js runtimes (npm), `rcodesign` (crates.io's apple-codesign), Python's `build`, `twine` and
 * `pypiserver` (PyPI, in a virtual environment of their own), and the project's Go helper
 * (scripts/release/go).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";

import { type ProgressLog, step } from "../support/progress";
import { type NodeRuntime, runtimeSpec } from "./targets";
import { REPOSITORY_ROOT } from "../support/user-project";
import { projectCache } from "../support/project-cache";

const run = promisify(execFile);

/** Where the release's tools are kept between runs. */
export const RELEASE_CACHE = projectCache("release");

/** The `sha512-<base64>` integrity of a file, as npm writes it. */
export async function sha512Integrity(file: string): Promise<string> {
  const hash = createHash("sha512");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest("base64")}`;
}

/**
 * Every file under `folder`, as paths relative to it with `/` separators, sorted. A release is plain
 * files: a symbolic link is an error.
 */
export async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  if (entries.some((entry) => entry.isSymbolicLink()))
    throw new Error(`${folder} holds a symbolic link: a release is plain files`);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/**
 * A runtime's package tarball, fetched with `npm pack` into the cache the first time, and checked
 * against its pinned integrity every time. `npm pack`, not an install: the packages declare the
 * `os` and `cpu` they run on, which npm would refuse to install here, and nothing of them runs
 * at install.
 */
export async function fetchRuntime(runtime: NodeRuntime, log: ProgressLog): Promise<string> {
  const folder = join(RELEASE_CACHE, "node-runtimes");
  const tarball = join(folder, `${runtime.name}-${runtime.version}.tgz`);
  if (!existsSync(tarball)) {
    await mkdir(folder, { recursive: true });
    await step(log, `Fetching ${runtimeSpec(runtime)} (npm pack, about 50 MB)`, async () => {
      // Into a folder of its own first, so that an interrupted fetch leaves no tarball behind.
      const partial = join(folder, `.partial-${process.pid}`);
      await mkdir(partial, { recursive: true });
      await run("npm", ["pack", runtimeSpec(runtime), "--pack-destination", partial, "--silent"], {
        maxBuffer: 64 * 1024 * 1024,
      });
      await rename(join(partial, `${runtime.name}-${runtime.version}.tgz`), tarball);
      await rm(partial, { recursive: true, force: true });
    });
  }
  const integrity = await sha512Integrity(tarball);
  if (integrity !== runtime.integrity)
    throw new Error(
      `${tarball} has integrity ${integrity}, where scripts/release/targets.ts pins ${runtime.integrity} for ${runtimeSpec(runtime)}: remove the file if it is damaged, or look into why the registry's changed`,
    );
  return tarball;
}

/** Takes a runtime's executable out of its package tarball into `folder`, and returns its path. */
export async function extractRuntime(runtime: NodeRuntime, tarball: string, folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", folder, runtime.binary]);
  return join(folder, runtime.binary);
}

/** apple-codesign's crate, whose `rcodesign` signs Mach-O executables on any platform. */
export const APPLE_CODESIGN = { crate: "apple-codesign", version: "0.29.0" } as const;

/**
 * `rcodesign`, built by `cargo install` the first time (about ten minutes on two cores), without
 * its notarization feature: the release signs ad hoc, and that feature brings in an AWS SDK.
 */
export async function ensureRcodesign(log: ProgressLog): Promise<string> {
  const root = join(RELEASE_CACHE, `${APPLE_CODESIGN.crate}-${APPLE_CODESIGN.version}`);
  const rcodesign = join(root, "bin", "rcodesign");
  if (existsSync(rcodesign)) return rcodesign;
  await step(
    log,
    `Building rcodesign (cargo install ${APPLE_CODESIGN.crate}@${APPLE_CODESIGN.version}, minutes)`,
    () =>
      run(
        "cargo",
        [
          "install",
          APPLE_CODESIGN.crate,
          "--version",
          APPLE_CODESIGN.version,
          "--locked",
          "--no-default-features",
          "--root",
          root,
        ],
        { maxBuffer: 64 * 1024 * 1024, timeout: 3_600_000 }, // 1 h
      ).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
        throw new Error(
          "cargo is needed to build rcodesign, which signs the macOS executables: install Rust (https://rustup.rs)",
        );
      }),
  );
  return rcodesign;
}

/**
 * Python's packaging tools for the Python SDK, every package pinned, in a requirements file that the
 * release workflow installs too: `setuptools` is what the SDK's pyproject.toml builds with; `twine`
 * checks and uploads; `pypiserver` is the package index the tests install the SDK from.
 */
export const PYTHON_TOOLS_FILE = join(REPOSITORY_ROOT, "scripts", "release", "python-tools.txt");

/** The pinned requirement of one of the Python tools, `setuptools==84.2.1`. */
export async function pythonToolPin(name: string): Promise<string> {
  const pin = (await readFile(PYTHON_TOOLS_FILE, "utf8"))
    .split("\n")
    .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}==`));
  if (pin === undefined) throw new Error(`${PYTHON_TOOLS_FILE} pins no ${name}`);
  return pin.trim();
}

/**
 * A virtual environment holding the Python tools, made with `python3 -m venv` the first time; its
 * folder is named after the pins, so that new pins make a new one. Returns its `python`.
 */
export async function ensurePythonTools(log: ProgressLog): Promise<string> {
  const requirements = await readFile(PYTHON_TOOLS_FILE, "utf8");
  const pins = createHash("sha256").update(requirements).digest("hex").slice(0, 12);
  const venv = join(RELEASE_CACHE, `python-tools-${pins}`);
  const python = join(venv, "bin", "python");
  const ready = join(venv, ".ready");
  if (existsSync(ready)) return python;
  await step(
    log,
    `Installing the Python tools (${PYTHON_TOOLS_FILE}) into a virtual environment (pip)`,
    async () => {
      await rm(venv, { recursive: true, force: true });
      await run("python3", ["-m", "venv", venv]).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
        throw new Error("Python 3 with venv is needed to build the Python SDK's wheel and sdist");
      });
      await run(
        python,
        ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", PYTHON_TOOLS_FILE],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      await writeFile(ready, requirements);
    },
  );
  return python;
}

/** Builds the project's Go helper (scripts/release/go) into `toolsDir`; Go's cache makes a rebuild quick. */
export async function buildReleaseGo(toolsDir: string, log: ProgressLog): Promise<string> {
  const output = join(toolsDir, "release-go");
  await mkdir(toolsDir, { recursive: true });
  await step(log, "Building the Go helper (scripts/release/go)", () =>
    run("go", ["build", "-o", output, "."], {
      cwd: join(REPOSITORY_ROOT, "scripts", "release", "go"),
      // Read-only, so that a build never rewrites the committed go.mod or go.sum.
      env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -buildvcs=false" },
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
      throw new Error(
        "Go is needed for the Go module's zip and the .NET sources' zip: install it from https://go.dev/dl/",
      );
    }),
  );
  return output;
}
