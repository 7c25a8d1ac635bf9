/**
 * Global set-up of the `integration-postgres` project: one throwaway PostgreSQL server for the run
 * (scripts/support/postgres.ts), on 127.0.0.1 at a free port; each test server gets a database of its own
 * on it (server-under-test.ts). Without the server binaries the project fails under CI; elsewhere
 * vitest.config.mts leaves it out and says why.
 */
import type { TestProject } from "vitest/node";
import { startPostgres } from "../../../scripts/support/postgres";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide("postgresUrl", server.url());
  return () => server.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The URL of the throwaway server's `postgres` database; absent in the SQLite projects. */
    postgresUrl: string | undefined;
  }
}
