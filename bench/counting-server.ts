/**
 * The reference server for `bench:engine`, in a process of its own: it counts the requests it serves
 * by kind and reports the CPU time it spent, so the benchmark can tell the server's share of the
 * machine from the engine's, the provider's and the program's. {@link startCountingServer} forks
 * this same file; run as that child, it serves an in-memory database on 127.0.0.1, port 0, and
 * answers the parent's messages until told to close.
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";

import { formatDatetime } from "../sdk/client/domain/resources/handler-encoding";
import { buildApp, openSqliteRepository } from "../server";

/** Requests served since the last {@link CountingServer.take}, by kind. */
export interface Served {
  lists: number;
  reads: number;
  writes: number;
  total: number;
  /** From the first request's end to the last's, in milliseconds. */
  spanMs: number;
}

/** The server process, as the benchmark drives it. */
export interface CountingServer {
  url: string;
  /** The server process's id. */
  pid: number;
  /** A new user with a new API key (a fresh account). */
  newKey(): Promise<string>;
  /** Requests served since the last call, by kind. */
  take(): Promise<Served>;
  /** CPU time (user and system) the server process spent since it started, in milliseconds. */
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

type Operation = "newKey" | "take" | "cpuMs" | "close";
interface Request {
  id: number;
  op: Operation;
}
type Reply = { id: number; result: unknown } | { ready: string } | { failed: string };

/** Starts the server process: `rateLimit` requests a minute per key (0: none), optionally emulating 2026. */
export function startCountingServer(rateLimit: number, emulate?: "2026"): Promise<CountingServer> {
  const child = fork(__filename, ["--serve", String(rateLimit), emulate ?? ""], { stdio: "inherit" });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  const call = (op: Operation): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      child.send({ id, op } satisfies Request);
    });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the server process exited (${String(code)})`)));
    child.on("message", (message: Reply) => {
      if ("failed" in message) reject(new Error(message.failed));
      else if ("ready" in message)
        resolve({
          url: message.ready,
          pid: child.pid ?? -1,
          newKey: async () => String(await call("newKey")),
          take: async () => (await call("take")) as Served,
          cpuMs: async () => Number(await call("cpuMs")),
          close: async () => {
            const exited = new Promise((done) => child.once("exit", done));
            await call("close");
            await exited;
          },
        });
      else {
        waiting.get(message.id)?.(message.result);
        waiting.delete(message.id);
      }
    });
  });
}

/** The child's side: serve, count, answer the parent. */
async function serve(rateLimit: number, emulate: string): Promise<void> {
  const send = (reply: Reply): void => {
    process.send?.(reply);
  };
  const repository = openSqliteRepository(":memory:");
  const app = buildApp({ repository, rateLimit, ...(emulate === "2026" ? { emulate } : {}) });
  let served: { method: string; path: string; at: number }[] = [];
  app.addHook("onResponse", (request, _reply, done) => {
    served.push({ method: request.method, path: request.url.split("?")[0] ?? "", at: performance.now() });
    done();
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  const take = (): Served => {
    const all = served;
    served = [];
    const isList = (s: { method: string; path: string }): boolean =>
      s.method === "GET" && /\/api\/notification-handlers\/?$/.test(s.path);
    const lists = all.filter(isList).length;
    const reads = all.filter((s) => s.method === "GET").length - lists;
    const spanMs = all.length === 0 ? 0 : (all.at(-1)?.at ?? 0) - (all[0]?.at ?? 0);
    return { lists, reads, writes: all.length - lists - reads, total: all.length, spanMs };
  };
  process.on("message", (request: Request) => {
    void (async () => {
      let result: unknown;
      switch (request.op) {
        case "newKey": {
          const now = formatDatetime(new Date());
          const user = await repository.ensureUser(`bench-${randomUUID()}`, now);
          result = await repository.createApiKey(user, now);
          break;
        }
        case "take":
          result = take();
          break;
        case "cpuMs": {
          const { user, system } = process.cpuUsage();
          result = (user + system) / 1000;
          break;
        }
        case "close":
          await app.close();
          await repository.close();
          result = true;
          break;
      }
      send({ id: request.id, result });
      if (request.op === "close") process.disconnect();
    })();
  });
  send({ ready: url });
}

if (require.main === module && process.argv[2] === "--serve") {
  serve(Number(process.argv[3]), process.argv[4] ?? "").catch((error: unknown) => {
    process.send?.({ failed: error instanceof Error ? error.message : String(error) } satisfies Reply);
    process.exitCode = 1;
  });
}
