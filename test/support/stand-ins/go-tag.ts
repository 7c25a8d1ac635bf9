/**
 * A stand-in for where `go get` takes the Go SDK from, this repository on GitHub at the tag
 * `sdk/go/v<version>`: a bare clone of the checkout, in which the release's own `tagGoSdk` commits
 * and tags the SDK the e2e set-up generated, and variables only (git's `insteadOf`, `GOPRIVATE`) that
 * send the go command there for that module alone, with no proxy and no checksum database for it.
 * The module is taken out of the machine's module cache first, since the go command never fetches
 * a version it holds; `expectServed` then finds it there with the tag's commit as its origin.
 */
import { readFileSync } from "node:fs";
import { readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

import { expect } from "vitest";

import { REPOSITORY_URL } from "../../../provider/tokens";
import { packageVersion } from "../../../scripts/release/build-plugin";
import {
  GO_SDK_FOLDER,
  GO_SDK_MODULE,
  goSdkFromRepository,
  goSdkTag,
  tagGoSdk,
} from "../../../scripts/release/go-tag";
import { acquireDirLock } from "../../../scripts/support/dir-lock";
import { projectCache } from "../../../scripts/support/project-cache";
import { mustRun, REPOSITORY_ROOT } from "../../../scripts/support/user-project";
import type { Registries } from "./registries";

/** Where a module's version is in a module cache: its download folder and its extracted files. */
function cachePlaces(moduleCache: string, version: string): { downloads: string; files: string } {
  // The path has no upper-case letter, so the cache's escaped form of it is itself.
  const path = GO_SDK_MODULE.split("/");
  return {
    downloads: join(moduleCache, "cache", "download", ...path, "@v"),
    files: join(moduleCache, ...path.slice(0, -1), `${path.at(-1)!}@v${version}`),
  };
}

/**
 * Holds the machine's module cache's copy of the Go SDK for one story at a time, until `release` is
 * called: each story takes it out and fetches it again, which would pull it from under another's
 * build, in this run or in another one on the machine. So the lock is the machine's too.
 */
function holdGoSdkInCache(): Promise<() => Promise<void>> {
  return acquireDirLock(projectCache("go-sdk-in-module-cache.lock"), {
    // Longer than an e2e test may hold it (its timeout is 5 min): an older lock is a killed run's.
    staleAfterMs: 10 * 60_000,
    pollMs: 250,
  });
}

/** The SDK tagged in a bare clone in `work`, and the module cache without the version it tags. */
async function takeGoSdkOutOfCache(work: string): Promise<{
  version: string;
  repository: string;
  commit: string;
  downloads: string;
  files: string;
}> {
  const version = packageVersion();
  const repository = join(work, "repository.git");
  const env = { cwd: work, env: process.env };
  await mustRun("git", ["clone", "--quiet", "--bare", "--local", REPOSITORY_ROOT, repository], env);
  const commit = await tagGoSdk({ repository, sdkGo: join(REPOSITORY_ROOT, GO_SDK_FOLDER), version });

  // The machine's module cache, the user's session's too (scripts/support/user-project.ts, machineCaches).
  const moduleCache = (await mustRun("go", ["env", "GOMODCACHE"], env)).stdout.trim();
  const { downloads, files } = cachePlaces(moduleCache, version);
  // The go command leaves extracted modules read-only.
  await mustRun("chmod", ["-R", "u+w", files], env).catch(() => undefined);
  await rm(files, { recursive: true, force: true });
  const downloaded = await readdir(downloads).catch(() => []);
  for (const name of downloaded.filter((n) => n.startsWith(`v${version}.`)))
    await rm(join(downloads, name), { force: true });
  // And its clone of the repository, whose tag an earlier run made on another commit: the go command
  // does not move a tag it has fetched.
  const clones = join(moduleCache, "cache", "vcs");
  for (const name of await readdir(clones).catch(() => [])) {
    const config = await readFile(join(clones, name, "config"), "utf8").catch(() => "");
    if (!config.includes(REPOSITORY_URL)) continue;
    for (const file of [name, `${name}.info`, `${name}.lock`])
      await rm(join(clones, file), { recursive: true, force: true });
  }

  return { version, repository, commit, downloads, files };
}

/**
 * The Go SDK of the e2e set-up (the checkout's `sdk/go`) at its tag in a bare clone in `work`; the
 * machine's module cache's copy is the caller's alone until `close`.
 */
export async function startGoSdkTag(work: string): Promise<Registries> {
  const release = await holdGoSdkInCache();
  const taken = await takeGoSdkOutOfCache(work).catch(async (error: unknown) => {
    await release();
    throw error;
  });
  const { version, repository, commit, downloads, files } = taken;
  return {
    env: goSdkFromRepository(repository),
    expectServed() {
      const info = JSON.parse(readFileSync(join(downloads, `v${version}.info`), "utf8")) as {
        Origin?: unknown;
      };
      expect(info.Origin, "where the go command took the Go SDK from").toEqual({
        VCS: "git",
        URL: REPOSITORY_URL,
        Subdir: GO_SDK_FOLDER,
        Hash: commit,
        Ref: `refs/tags/${goSdkTag(version)}`,
      });
      expect(readFileSync(join(files, "go.mod"), "utf8")).toMatch(new RegExp(`^module ${GO_SDK_MODULE}\n`));
    },
    async close() {
      // The bare clone is in `work`, which its caller removes.
      await release();
    },
  };
}
