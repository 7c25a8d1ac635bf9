/**
 * A fault-injecting HTTP proxy for tests: it listens on 127.0.0.1 and forwards to one target, and a
 * seeded share of the requests meets a fault instead of a clean answer, as flaky deployed instances
 * and networks do:
 *
 * - `5xx-before`: 500, 502 or 503 without forwarding (nothing happened at the server);
 * - `5xx-after`:  forwarded and handled, then answered 500, 502 or 503 instead (something happened);
 * - `429`:        429 with `Retry-After: 1` without forwarding;
 * - `reset-before`: the connection is cut once the request has arrived, without forwarding;
 * - `reset-after`:  forwarded and handled, then the connection is cut instead of answering;
 * - `slow`:       forwarded and handled, then answered after `--slow-ms` (longer than the client waits).
 *
 * Besides the faults, the test can hold answers, to stop a client at a chosen point: a line `hold
 * METHOD` on stdin makes the requests of that method that arrive from then on be forwarded and handled
 * and their answers kept back (one line `held METHOD PATH` each); `release METHOD` sends the answers
 * kept back and stops holding. Each command is acknowledged with a line `hold METHOD done` or
 * `release METHOD done`.
 *
 * Usage: `node test/support/servers/fault-proxy-process.mts --target URL [--rate 0.2] [--seed 1] [--slow-ms 3000]
 * [--kinds 429,slow] [--port 0]`. The first line on stdout is `listening on http://127.0.0.1:PORT`; then one line per
 * fault, `fault KIND METHOD PATH`, and per answer held, `held METHOD PATH`. SIGTERM and SIGINT stop it. Loopback only: it refuses another host.
 */
import { Agent, type IncomingHttpHeaders, type IncomingMessage, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

/** The kinds of fault, each drawn with the same chance. */
const FAULT_KINDS = ["5xx-before", "5xx-after", "429", "reset-before", "reset-after", "slow"] as const;
/** One kind of fault. */
type FaultKind = (typeof FAULT_KINDS)[number];

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed gives the same faults. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Options {
  target: URL;
  kinds: readonly FaultKind[];
  rate: number;
  seed: number;
  slowMs: number;
  port: number;
}

function readOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: "string" },
      rate: { type: "string", default: "0.2" },
      seed: { type: "string", default: "1" },
      "slow-ms": { type: "string", default: "3000" },
      port: { type: "string", default: "0" },
      kinds: { type: "string", default: FAULT_KINDS.join(",") },
    },
  });
  if (values.target === undefined) throw new Error("--target URL is required");
  const target = new URL(values.target);
  if (target.hostname !== "127.0.0.1" && target.hostname !== "localhost")
    throw new Error("--target must be on 127.0.0.1: the proxy is for loopback tests only");
  const rate = Number(values.rate);
  if (!(rate >= 0 && rate <= 1)) throw new Error("--rate must be between 0 and 1");
  const kinds = values.kinds.split(",").map((k) => k.trim());
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind))
      throw new Error(`--kinds: unknown fault ${JSON.stringify(kind)} (known: ${FAULT_KINDS.join(", ")})`);
  }
  return {
    target,
    kinds: kinds as FaultKind[],
    rate,
    seed: Number(values.seed),
    slowMs: Number(values["slow-ms"]),
    port: Number(values.port),
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function readBody(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The answers kept back, by method: each waits for its method's release. */
class Holds {
  private readonly waiting = new Map<string, (() => void)[]>();

  /** Reads `hold METHOD` and `release METHOD` lines from stdin; the returned function stops reading. */
  listen(): () => void {
    const lines = createInterface({ input: process.stdin });
    lines.on("line", (line) => {
      const [verb, method] = line.trim().split(/\s+/);
      if (method === undefined) return;
      if (verb === "hold" && !this.waiting.has(method)) this.waiting.set(method, []);
      if (verb === "release") {
        for (const send of this.waiting.get(method) ?? []) send();
        this.waiting.delete(method);
      }
      if (verb === "hold" || verb === "release") process.stdout.write(`${verb} ${method} done\n`);
    });
    return () => {
      lines.close();
      process.stdin.destroy();
    };
  }

  /** Resolves when the answer to a request of `method` may be sent (at once unless held). */
  async until(method: string, path: string): Promise<void> {
    const queue = this.waiting.get(method);
    if (queue === undefined) return;
    process.stdout.write(`held ${method} ${path}\n`);
    await new Promise<void>((resolve) => queue.push(resolve));
  }
}

function main(): void {
  const options = readOptions(process.argv.slice(2));
  const random = seeded(options.seed);
  const holds = new Holds();
  const stopReading = holds.listen();
  const agent = new Agent({ keepAlive: true });
  const forward = (incoming: IncomingMessage, body: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers = { ...incoming.headers, host: options.target.host };
      const out = request(
        {
          host: options.target.hostname,
          port: options.target.port,
          method: incoming.method,
          path: incoming.url,
          headers,
          agent,
        },
        (res) => {
          readBody(res).then(
            (data) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: data }),
            reject,
          );
        },
      );
      out.on("error", reject);
      out.end(body);
    });

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const fault: FaultKind | undefined =
        random() < options.rate ? options.kinds[Math.floor(random() * options.kinds.length)] : undefined;
      const status5xx = [500, 502, 503][Math.floor(random() * 3)] ?? 500;
      if (fault !== undefined)
        process.stdout.write(`fault ${fault} ${req.method} ${req.url?.split("?")[0]}\n`);
      const cut = (): void => {
        req.socket.destroy();
      };
      if (fault === "reset-before") return cut();
      if (fault === "5xx-before" || fault === "429") {
        const status = fault === "429" ? 429 : status5xx;
        res.writeHead(status, {
          "content-type": "application/json",
          ...(status === 429 ? { "retry-after": "1" } : {}),
        });
        res.end(JSON.stringify({ errors: [{ title: "Injected fault.", status }] }));
        return;
      }
      const answer = await forward(req, body);
      if (fault === "reset-after") return cut();
      if (fault === "5xx-after") {
        res.writeHead(status5xx, { "content-type": "application/json" });
        res.end(JSON.stringify({ errors: [{ title: "Injected fault.", status: status5xx }] }));
        return;
      }
      if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, options.slowMs));
      await holds.until(req.method ?? "", req.url?.split("?")[0] ?? "");
      if (res.destroyed) return;
      const headers = { ...answer.headers };
      delete headers["transfer-encoding"];
      delete headers.connection;
      delete headers["keep-alive"];
      res.writeHead(answer.status, headers);
      res.end(answer.body);
    })().catch(() => {
      req.socket.destroy();
    });
  });
  server.listen(options.port, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
  });
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    agent.destroy();
    stopReading();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main();
