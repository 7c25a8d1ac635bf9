/**
 * The reference server in the tests' own process, on 127.0.0.1, port 0, counting what it serves (so
 * a test can hold the provider to its request budget) and reaching into its store as the web UI
 * would (edits, deletes, handlers made by hand). The e2e tests and the plugin's integration tests
 * share it.
 */
import { randomUUID } from "node:crypto";

import { onTestFinished } from "vitest";

import {
  buildApp,
  openSqliteRepository,
  type EmulatedVersion,
  type HandlerRecord,
  type Repository,
} from "../../../server";

/** One request the server answered. */
export interface Served {
  method: string;
  path: string;
  status: number;
}

/** A reference server listening on 127.0.0.1, port 0, counting what it serves. */
export interface TestServer {
  url: string;
  repository: Repository;
  served: Served[];
  /** A new API key for a new user. */
  newKey(user?: string): Promise<string>;
  /** The handlers of a key's user, read from the store (no request is served), oldest first. */
  handlers(key: string): Promise<HandlerRecord[]>;
  /** Changes a handler in the store, as an edit in the web UI would (no request is served). */
  edit(
    key: string,
    id: number,
    change: Partial<Pick<HandlerRecord, "name" | "isEnabled" | "settings">>,
  ): Promise<void>;
  /** Deletes a handler from the store, as the web UI would. */
  drop(key: string, id: number): Promise<void>;
  /** Creates a handler in the store, as the web UI would; returns its id. */
  seed(
    key: string,
    data: Pick<HandlerRecord, "type" | "name" | "settings"> & { isEnabled?: boolean },
  ): Promise<number>;
  /** Requests served since `mark` (an index into `served`), by kind. */
  countSince(mark: number): { lists: number; reads: number; writes: number; total: number };
  close(): Promise<void>;
}

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Requests per key and window; 0 (the default here) turns the limit off. */
  rateLimit?: number;
  /** The rate-limit window, 60 s by default. */
  rateLimitWindowMs?: number;
  /** Answer as a deployed version does (docs/api.md#deployed). */
  emulate?: EmulatedVersion;
  /**
   * Requests whose answer is never sent: the server does the work, then cuts the connection, as a
   * network failure after the request arrived would. Called once per request.
   */
  cutAfterHandling?: (method: string, path: string) => boolean;
  /** Milliseconds each request waits before it is handled (a slow site); 0 for none. */
  delayMs?: (method: string, path: string) => number;
}

/** Starts the reference server in this process. */
export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  const repository = openSqliteRepository(":memory:");
  const app = buildApp({
    repository,
    rateLimit: options.rateLimit ?? 0,
    ...(options.rateLimitWindowMs === undefined ? {} : { rateLimitWindowMs: options.rateLimitWindowMs }),
    ...(options.emulate === undefined ? {} : { emulate: options.emulate }),
  });
  const served: Served[] = [];
  app.addHook("onResponse", (request, reply, done) => {
    served.push({ method: request.method, path: request.url.split("?")[0] ?? "", status: reply.statusCode });
    done();
  });
  const delay = options.delayMs;
  if (delay !== undefined) {
    app.addHook("onRequest", async (request) => {
      const ms = delay(request.method, request.url.split("?")[0] ?? "");
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    });
  }
  const cut = options.cutAfterHandling;
  if (cut !== undefined) {
    app.addHook("onSend", (request, _reply, payload, done) => {
      if (cut(request.method, request.url.split("?")[0] ?? "")) {
        request.raw.socket.destroy();
        return;
      }
      done(null, payload);
    });
  }
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    repository,
    served,
    async newKey(user = `user-${randomUUID()}`) {
      return await repository.createApiKey(await repository.ensureUser(user, stamp()), stamp());
    },
    async handlers(key) {
      return (
        await repository.listHandlers(await userOf(repository, key), LIST_ALL, 10_000, 0)
      ).records.slice();
    },
    async edit(key, id, change) {
      const user = await userOf(repository, key);
      const updated = await repository.updateHandler(
        user,
        id,
        (current) => ({ ...current, ...change }),
        stamp(),
      );
      if (updated === undefined) throw new Error(`no handler ${id}`);
    },
    async drop(key, id) {
      await repository.deleteHandler(await userOf(repository, key), id);
    },
    async seed(key, data) {
      const user = await userOf(repository, key);
      return (await repository.createHandler(user, { isEnabled: true, ...data }, stamp())).id;
    },
    countSince(mark) {
      const slice = served.slice(mark);
      const isList = (s: Served): boolean =>
        s.method === "GET" && /\/api\/notification-handlers\/?$/.test(s.path);
      const lists = slice.filter(isList).length;
      const reads = slice.filter((s) => s.method === "GET" && !isList(s)).length;
      const writes = slice.filter((s) => s.method !== "GET").length;
      return { lists, reads, writes, total: slice.length };
    },
    async close() {
      await app.close();
      await repository.close();
    },
  };
}

const LIST_ALL = {
  datetimeField: "datetime",
  orderBy: "notification_handler_id",
  orderType: "ASC",
} as const;

const stamp = (): string => new Date().toISOString().slice(0, 19).replace("T", " ");

async function userOf(repository: Repository, key: string): Promise<number> {
  const principal = await repository.authenticate(key);
  if (principal === undefined) throw new Error("unknown key");
  return principal.userId;
}

/** A reference server (see {@link startServer}) for the running test, closed when the test ends. */
export async function serverForTest(options: StartServerOptions = {}): Promise<TestServer> {
  const server = await startServer(options);
  onTestFinished(() => server.close());
  return server;
}
