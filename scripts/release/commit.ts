/**
 * What a release is built from, besides its files: the commit checked out and its time. Every time a
 * release stamps (archive entries, the Go module's `.info`, the SBOMs) is the commit's, as
 * `SOURCE_DATE_EPOCH` gives it (reproducible-builds.org's variable, which Python's build tools read
 * too), or `git log -1 --format=%ct` when it is unset: the same commit makes the same bytes on any day.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

import { REPOSITORY_ROOT } from "../support/user-project";

const run = promisify(execFile);

/** The commit a release is built from and the time it stamps. */
export interface ReleaseCommit {
  /** The full hash of HEAD. */
  commit: string;
  /** Seconds since 1970: `SOURCE_DATE_EPOCH`, else the commit's time. */
  epoch: number;
}

async function git(args: string[], root: string): Promise<string> {
  try {
    return (await run("git", args, { cwd: root })).stdout.trim();
  } catch {
    throw new Error(
      `${root} is not a git checkout (git ${args.join(" ")} failed): a release is built from a commit`,
    );
  }
}

/** HEAD of the checkout at `root`, and the release's time (see the file comment). */
export async function releaseCommit(root = REPOSITORY_ROOT): Promise<ReleaseCommit> {
  const commit = await git(["rev-parse", "HEAD"], root);
  const given = process.env.SOURCE_DATE_EPOCH;
  if (given !== undefined && given !== "") {
    if (!/^\d+$/.test(given))
      throw new Error(
        `SOURCE_DATE_EPOCH must be a whole number of seconds since 1970, not ${JSON.stringify(given)}`,
      );
    return { commit, epoch: Number(given) };
  }
  return { commit, epoch: Number(await git(["log", "-1", "--format=%ct"], root)) };
}

/** A time as RFC 3339 in UTC to the second: `2026-11-29T01:31:00Z`. */
export const rfc3339 = (epoch: number): string =>
  new Date(epoch * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
