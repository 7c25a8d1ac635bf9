/**
 * Ends the `notification-handlers-server` command with one line on a Node.js whose `node:sqlite` the
 * SQLite store cannot use. It must run before anything loads the store, so `main.ts` imports it
 * first: loading the store on Node.js 20 stops with ERR_UNKNOWN_BUILTIN_MODULE and a stack trace.
 */
import type * as Sqlite from "node:sqlite";

/**
 * The Node.js the store needs, as package.json's `engines` says it: `node:sqlite` without a flag
 * (22.13, 23.4), user functions (22.13, 23.5) and `DatabaseSync.isOpen` (22.15, 23.11).
 */
const NODE_REQUIREMENT = "Node.js 22.15 or later (23.11 or later on the 23 line)";

/** Whether this Node.js loads `node:sqlite` with all the store uses: tried, not read off the version. */
function sqliteUsable(): boolean {
  let sqlite: typeof Sqlite;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a built-in that may be missing
    sqlite = require("node:sqlite") as typeof Sqlite;
  } catch {
    return false;
  }
  try {
    // isOpen is an own property of each database, not of the prototype: only an open one tells.
    const db = new sqlite.DatabaseSync(":memory:");
    const usable = typeof db.isOpen === "boolean" && typeof db.function === "function";
    db.close();
    return usable;
  } catch {
    return false;
  }
}

if (!sqliteUsable()) {
  process.stderr.write(
    `notification-handlers-server: needs ${NODE_REQUIREMENT} for its SQLite store (node:sqlite); this is Node.js ${process.version}\n`,
  );
  process.exit(1);
}
