/**
 * The Go SDK's tag, `sdk/go/v<version>`: the go command fetches a module below a repository's root
 * from the repository at that tag, and the generated SDK is build output, never on a branch. So the
 * release makes a commit holding it (the released commit's tree plus `sdk/go/`, the released commit
 * its parent) and tags it, with git's plumbing and an index of its own: the branch, the index and the
 * working tree stay as they were, and a bare repository works the same (docs/releasing.md#the-go-sdks-tag).
 *
 * The commit's author, committer and dates are the released commit's committer and date, so the same
 * release makes the same commit. A tag already there is kept when its commit has the same tree, and
 * refused otherwise.
 */
import { execFile } from "node:child_process";
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

import { REPOSITORY_URL } from "../../provider/tokens";
import type { ProgressLog } from "../support/progress";
import { filesUnder } from "./tools";
import { scratchFolder } from "../support/user-project";

const run = promisify(execFile);

/** Where the module is in the repository, as its path and its tag begin. */
export const GO_SDK_FOLDER = "sdk/go";

/** The module's path: the repository's, then the folder (the go command finds it so). */
export const GO_SDK_MODULE = `${REPOSITORY_URL.replace(/^https:\/\//, "")}/${GO_SDK_FOLDER}`;

/** The tag the go command looks for when asked for the module at `version` (`0.2.0`). */
export const goSdkTag = (version: string): string => `${GO_SDK_FOLDER}/v${version}`;

/** What {@link tagGoSdk} tags. */
export interface GoSdkTagOptions {
  /** The repository: a checkout or a bare one. Its HEAD is the released commit. */
  repository: string;
  /** The generated Go SDK: the folder holding its go.mod. */
  sdkGo: string;
  /** The release's version, `0.2.0`. */
  version: string;
  log?: ProgressLog;
}

/**
 * Makes the commit of the Go SDK in `sdkGo` on the repository's HEAD and tags it
 * `sdk/go/v<version>` (see the file comment); returns the commit. A tag already there is kept when
 * its commit has the same tree (the same release again), and is an error otherwise.
 */
export async function tagGoSdk({ repository, sdkGo, version, log }: GoSdkTagOptions): Promise<string> {
  const say = log ?? (() => undefined);
  const tag = goSdkTag(version);
  const goMod = await readFile(join(sdkGo, "go.mod"), "utf8");
  if (!goMod.startsWith(`module ${GO_SDK_MODULE}\n`))
    throw new Error(`${sdkGo}/go.mod names another module than ${GO_SDK_MODULE}`);

  const git = async (args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<string> => {
    const child = run("git", args, { cwd: repository, env: { ...process.env, ...env } });
    if (input !== undefined) child.child.stdin!.end(input);
    return (await child).stdout.trim();
  };
  const parent = await git(["rev-parse", "--verify", "HEAD^{commit}"]);
  const [name = "", email = "", date = ""] = (
    await git(["log", "-1", "--format=%cn%n%ce%n%cI", parent])
  ).split("\n");

  // An index of its own, in a scratch folder: the repository's index is never read or written.
  const scratch = await scratchFolder("go-sdk-tag");
  try {
    const index = { GIT_INDEX_FILE: join(scratch, "index") };
    await git(["read-tree", parent], index);
    const files = await filesUnder(sdkGo);
    // Stored as they are: no filter of the repository's attributes applies to generated files.
    const blobs = (
      await git(
        ["hash-object", "-w", "--no-filters", "--stdin-paths"],
        {},
        files.map((f) => join(sdkGo, f)).join("\n"),
      )
    ).split("\n");
    const entries: string[] = [];
    // Whatever the released commit holds at sdk/go (nothing, as it is ignored) gives way to the SDK.
    for (const old of (await git(["ls-tree", "-r", "--name-only", parent, "--", GO_SDK_FOLDER])).split("\n"))
      if (old !== "") entries.push(`0 ${"0".repeat(40)}\t${old}`);
    for (const [i, file] of files.entries()) {
      const executable = ((await stat(join(sdkGo, file))).mode & 0o111) !== 0;
      entries.push(`${executable ? "100755" : "100644"} ${blobs[i]}\t${GO_SDK_FOLDER}/${file}`);
    }
    await git(["update-index", "--index-info"], index, `${entries.join("\n")}\n`);
    const tree = await git(["write-tree"], index);

    const existing = await git(["rev-parse", "-q", "--verify", `refs/tags/${tag}^{commit}`]).catch(() => "");
    if (existing !== "") {
      if ((await git(["rev-parse", `${existing}^{tree}`])) === tree) {
        say(`The tag ${tag} is already there, on ${existing.slice(0, 12)}, with the same files: kept.`);
        return existing;
      }
      throw new Error(
        `the tag ${tag} already exists, on ${existing.slice(0, 12)}, with other files than this release's: ` +
          `delete it with \`git tag -d ${tag}\` to make it again (once pushed, it is the published module: ` +
          `release another version instead)`,
      );
    }

    const message = [
      `Go SDK v${version}, generated for the release`,
      "",
      `The module ${GO_SDK_MODULE}`,
      `at v${version}, generated from provider/schema.json into ${GO_SDK_FOLDER}/ on the`,
      `released commit ${parent}.`,
      `The tag ${tag} holds it, no branch does.`,
      "",
    ].join("\n");
    const who = { NAME: name, EMAIL: email, DATE: date };
    const identity = Object.fromEntries(
      Object.entries(who).flatMap(([key, value]) => [
        [`GIT_AUTHOR_${key}`, value],
        [`GIT_COMMITTER_${key}`, value],
      ]),
    );
    const commit = await git(["commit-tree", tree, "-p", parent, "-F", "-"], identity, message);
    // The empty old value: made only if no tag of that name appeared meanwhile.
    await git(["update-ref", `refs/tags/${tag}`, commit, ""]);
    say(`Tagged ${tag}: ${commit.slice(0, 12)}, the Go SDK on ${parent.slice(0, 12)}.`);
    return commit;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The git bundle of the tag's commit, beside the release's folder in `dist/release/`. */
export const goSdkBundleName = (version: string): string => `go-sdk-v${version}.bundle`;

/**
 * Writes the tag `sdk/go/v<version>` and its commit alone into the git bundle `out`, for another clone
 * of the repository to fetch and push (the release workflow's publish job); the released commit, its
 * parent, is the bundle's one prerequisite.
 */
export async function bundleGoSdkTag(repository: string, version: string, out: string): Promise<void> {
  const tag = `refs/tags/${goSdkTag(version)}`;
  await run("git", ["bundle", "create", "--quiet", out, tag, `^${tag}^`], { cwd: repository });
}

/**
 * The variables that send the go command's fetch of the module to the git repository `repository`
 * (a path) in place of GitHub, with no proxy and no checksum database for it: git rewrites the
 * repository's address, and every other module comes from where it would.
 */
export function goSdkFromRepository(repository: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: `url.file://${repository}.insteadOf`,
    GIT_CONFIG_VALUE_0: REPOSITORY_URL,
    GOPRIVATE: `${GO_SDK_MODULE.split("/").slice(0, 2).join("/")}/*`,
  };
}
