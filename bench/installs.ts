/**
 * The packages `bench:engine` runs, installed as a user installs them: packed as npm would publish
 * them, each tarball installed into a folder of its own beside `@pulumi/pulumi` and the rest of what
 * the quickstart's lockfile pins. The benchmark makes its projects inside such a folder, so their
 * program and dynamic-provider processes load that copy.
 *
 * Another revision's package (`--baseline REV`, the previous release) is packed from its own commit:
 * checked out into a git worktree, installed and built there with its own lockfile, then packed; for
 * `--yaml`, its plugin is built there instead. The tarball is kept in the machine's cache by commit,
 * so the next run takes it at once.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { mustRun, packPackages, REPOSITORY_ROOT } from "../scripts/support/user-project";
import { projectCache } from "../scripts/support/project-cache";

/** A package installed for the benchmark. */
export interface Install {
  /** The folder whose `node_modules` holds it; projects are made below it. */
  dir: string;
  /** The installed package's version. */
  version: string;
}

/** The folder that keeps packed revisions between runs. */
const CACHE = projectCache("bench");

const QUICKSTART = join(REPOSITORY_ROOT, "examples", "quickstart");

/** Installs `tarball` into a new folder under `parent`, with what the quickstart's lockfile pins. */
export async function installTarball(tarball: string, parent: string, name: string): Promise<Install> {
  const dir = join(parent, name);
  await mkdir(dir, { recursive: true });
  const example = JSON.parse(await readFile(join(QUICKSTART, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const manifest = {
    name: `bench-${name}`,
    private: true,
    dependencies: { ...example.dependencies, "pulumi-notification-handlers": `file:${tarball}` },
  };
  await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await copyFile(join(QUICKSTART, "package-lock.json"), join(dir, "package-lock.json"));
  await mustRun("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: dir,
    env: process.env,
  });
  const installed = JSON.parse(
    await readFile(join(dir, "node_modules", "pulumi-notification-handlers", "package.json"), "utf8"),
  ) as { version: string };
  return { dir, version: installed.version };
}

/** The checkout's package, packed (it must be built). */
export async function packCheckout(destination: string): Promise<string> {
  const specs = await packPackages(destination);
  return specs["pulumi-notification-handlers"].replace(/^file:/, "");
}

/** The commit a revision names, in full. */
export function commitOf(revision: string): string {
  return execFileSync("git", ["rev-parse", "--verify", `${revision}^{commit}`], {
    cwd: REPOSITORY_ROOT,
    encoding: "utf8",
  }).trim();
}

/** What a revision is packed into: its npm package, or its plugin's tarball for this platform. */
export type Artifact = "package" | "plugin";

/** Whether `revision`'s package.json has the npm script `name`. */
function hasScript(commit: string, name: string): boolean {
  const manifest = execFileSync("git", ["show", `${commit}:package.json`], {
    cwd: REPOSITORY_ROOT,
    encoding: "utf8",
  });
  return name in ((JSON.parse(manifest) as { scripts?: Record<string, string> }).scripts ?? {});
}

/**
 * The package (or the plugin) of `revision`, built from its own commit (see the module comment);
 * `log` tells what takes minutes.
 */
export async function packRevision(
  revision: string,
  artifact: Artifact,
  log: (line: string) => void,
): Promise<string> {
  const commit = commitOf(revision);
  const kept = join(CACHE, `${commit}-${artifact}.tgz`);
  if (existsSync(kept)) return kept;
  if (artifact === "plugin" && !hasScript(commit, "build:plugin"))
    throw new Error(
      `${revision} has no plugin (its package.json has no build:plugin script): run --yaml without --baseline`,
    );
  const source = await mkdtemp(join(tmpdir(), "notification-handlers-baseline-"));
  await rm(source, { recursive: true });
  const git = (args: string[]): Promise<unknown> =>
    mustRun("git", args, { cwd: REPOSITORY_ROOT, env: process.env });
  await git(["worktree", "add", "--detach", source, commit]);
  try {
    log(`installing and building ${revision} (${commit.slice(0, 7)}) in a worktree (minutes)`);
    const run = (args: string[]): Promise<{ stdout: string }> =>
      mustRun("npm", args, { cwd: source, env: process.env });
    await run(["ci", "--no-audit", "--no-fund", "--prefer-offline"]);
    let built: string;
    if (artifact === "package") {
      await run(["run", "build"]); // later revisions build when packed (`prepack`), not at `npm ci`
      const [packed] = JSON.parse((await run(["pack", "--ignore-scripts", "--json"])).stdout) as [
        { filename: string },
      ];
      built = join(source, packed.filename);
    } else {
      await run(["run", "build:plugin"]);
      const folder = join(source, "dist", "plugin");
      const name = (await readdir(folder)).find((f) =>
        f.endsWith(`-${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}.tar.gz`),
      );
      if (name === undefined)
        throw new Error(`${revision}'s build:plugin made no tarball for this platform in ${folder}`);
      built = join(folder, name);
    }
    await mkdir(CACHE, { recursive: true });
    await copyFile(built, kept);
    return kept;
  } finally {
    await git(["worktree", "remove", "--force", source]);
  }
}
