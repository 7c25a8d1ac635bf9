/** Opening the store at a location: the implementation a PostgreSQL URL or an SQLite file path names. */
import { isPostgresUrl, maskedDatabaseUrl, urlScheme } from "./records";
import type { Repository } from "./repository";
import { openSqliteRepository } from "./repository-sqlite";

/** A database location that cannot be opened as given: a bad URL or an unknown scheme. */
class DatabaseLocationError extends Error {
  override name = "DatabaseLocationError";
}

/**
 * Opens the store at `location`, creating and migrating its schema if needed: a `postgres://` or
 * `postgresql://` URL, else an SQLite file path (`:memory:` keeps nothing). The PostgreSQL client
 * is loaded only for a URL. Errors never show the URL's password.
 */
export async function openRepository(location: string): Promise<Repository> {
  if (isPostgresUrl(location)) {
    const { openPostgresRepository } = await import("./repository-postgres.js");
    return openPostgresRepository(location);
  }
  const scheme = urlScheme(location);
  if (scheme !== undefined) {
    throw new DatabaseLocationError(
      `${maskedDatabaseUrl(location)}: a ${scheme}:// URL names no store this server knows; give postgres://... or an SQLite file path`,
    );
  }
  return openSqliteRepository(location);
}
