/**
 * The folders this project's tools keep between runs (the engine, release tools, packed revisions,
 * virtual environments, vitest's results), in the user's cache folder.
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** The user's cache folder, as `env` says it. */
export function userCache(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
}

/** `<user cache>/pulumi-notification-handlers/<part>`. */
export function projectCache(part: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(userCache(env), "pulumi-notification-handlers", part);
}
