/**
 * A lock between processes on one machine: a folder, which `mkdir` makes for one process only. Whoever
 * made it holds the lock until it removes it; the others poll. A lock older than `staleAfterMs` is
 * left by a killed run and is taken over.
 */
import { mkdir, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";

/** Makes the folder `path`: true when this call made it, false when it was there already. */
export async function claimFolder(path: string): Promise<boolean> {
  return mkdir(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      throw error;
    },
  );
}

/** How a waiter for a lock polls, and when it takes the lock over. */
export interface DirLockOptions {
  /** The age (of the folder) past which a lock is a killed run's, removed and taken. */
  staleAfterMs: number;
  /** How long a waiter sleeps between tries. */
  pollMs: number;
  /** Called on the first wait and every `waitNoticeEvery` tries after it: that another holds it. */
  onWait?: () => void;
  waitNoticeEvery?: number;
}

/** Takes the lock `lock` (a folder, its parent made if missing); resolves to its release. */
export async function acquireDirLock(lock: string, options: DirLockOptions): Promise<() => Promise<void>> {
  const { staleAfterMs, pollMs, onWait, waitNoticeEvery = 1 } = options;
  await mkdir(dirname(lock), { recursive: true });
  for (let waited = 0; !(await claimFolder(lock)); waited++) {
    // A lock gone between the claim and here is no age: the next try takes it.
    const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > staleAfterMs) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (waited % waitNoticeEvery === 0) onWait?.();
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return () => rm(lock, { recursive: true, force: true });
}

/** Runs `work` holding the lock `lock` (see {@link acquireDirLock}). */
export async function withDirLock<T>(
  lock: string,
  options: DirLockOptions,
  work: () => Promise<T>,
): Promise<T> {
  const release = await acquireDirLock(lock, options);
  try {
    return await work();
  } finally {
    await release();
  }
}
