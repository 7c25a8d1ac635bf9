/**
 * A throwaway PostgreSQL server for the tests and the benchmark: initdb in a temporary folder, then
 * `postgres` listening on 127.0.0.1 at a port the OS picked free, and its socket in that folder.
 * Durability is off (fsync, synchronous_commit) unless asked for: the data lives only as long as the run.
 *
 * The server binaries come from `POSTGRES_BIN` (a folder), else the newest
 * `/usr/lib/postgresql/<version>/bin` (Debian's `postgresql` package), else `initdb` on the PATH.
 * initdb refuses to run as root, so as root the server runs as `nobody` (uid and gid 65534, or
 * `POSTGRES_UID` and `POSTGRES_GID`), which owns the temporary folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import pg from "pg";

/** A running throwaway server. */
export interface LocalPostgres {
  /** The URL of `database` on it (`postgres` is the one initdb makes). */
  url(database?: string): string;
  /** Creates a fresh, empty database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** Drops a database made by `createDatabase`, closing whatever is still connected to it. */
  dropDatabase(name: string): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

const SUPERUSER = "postgres";
const NOBODY = 65_534;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function hasServer(dir: string): boolean {
  return isExecutable(join(dir, "initdb")) && isExecutable(join(dir, "postgres"));
}

/**
 * The folder holding `initdb` and `postgres`, or a sentence saying why there is none (for a skip
 * message or a CI failure).
 */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): { dir: string } | { missing: string } {
  const override = env["POSTGRES_BIN"];
  if (override !== undefined && override !== "") {
    return hasServer(override)
      ? { dir: override }
      : { missing: `POSTGRES_BIN=${override} holds no executable initdb and postgres` };
  }
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const dir = join(debian, version, "bin");
      if (hasServer(dir)) return { dir };
    }
  }
  for (const dir of (env["PATH"] ?? "").split(delimiter)) {
    if (dir !== "" && hasServer(dir)) return { dir };
  }
  return {
    missing:
      "no PostgreSQL server binaries (initdb, postgres) in POSTGRES_BIN, /usr/lib/postgresql/*/bin or PATH; " +
      "install them with `apt-get install postgresql` (Debian, Ubuntu) or point POSTGRES_BIN at them",
  };
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

/** Runs a binary as the server's user, failing with its output. */
async function run(binary: string, args: readonly string[], user: SpawnUser): Promise<void> {
  const child = spawn(binary, args, { ...user, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`${binary} exited with ${code}: ${output.trim()}`);
}

interface SpawnUser {
  uid?: number;
  gid?: number;
}

/** The user to run as: ourselves, or `nobody` when we are root (initdb refuses root). */
function serverUser(env: NodeJS.ProcessEnv): SpawnUser {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(env["POSTGRES_UID"] ?? NOBODY);
  const gid = Number(env["POSTGRES_GID"] ?? NOBODY);
  return { uid, gid };
}

async function waitUntilReady(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000; // 60 s: a busy 2-core machine can be slow to start it
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        throw new Error(`postgres did not start in 60 s: ${log()}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Options of {@link startPostgres}. */
interface StartPostgresOptions {
  /** Sync every commit to disk, as a real deployment does (the benchmark); off by default (tests). */
  readonly durable?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

/** Starts a throwaway server; `stop()` it when done. Throws when the binaries are missing. */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<LocalPostgres> {
  const env = options.env ?? process.env;
  const found = findPostgresBin(env);
  if ("missing" in found) throw new Error(found.missing);
  const user = serverUser(env);
  const root = mkdtempSync(join(tmpdir(), "nh-postgres-"));
  const data = join(root, "data");
  if (user.uid !== undefined) chownSync(root, user.uid, user.gid ?? user.uid);
  let server: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    if (server !== undefined && server.exitCode === null && server.signalCode === null) {
      const exited = once(server, "exit");
      server.kill("SIGINT"); // a fast shutdown: sessions are cut, nothing is worth keeping
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await run(
      join(found.dir, "initdb"),
      ["-D", data, "-U", SUPERUSER, "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C"],
      user,
    );
    const port = await freePort();
    server = spawn(
      join(found.dir, "postgres"),
      [
        "-D",
        data,
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-k",
        root,
        ...(options.durable === true
          ? []
          : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
        "-c",
        "max_connections=300",
      ],
      { ...user, stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    server.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      log = (log + chunk).slice(-4_000);
    });
    const url = (database = SUPERUSER): string => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
    await waitUntilReady(url(), server, () => log);
    const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    };
    return {
      url,
      createDatabase: async (name) => {
        await admin((client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
        return url(name);
      },
      dropDatabase: async (name) => {
        await admin((client) =>
          client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
