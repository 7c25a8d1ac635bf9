/**
 * A TCP relay between a store and the run's PostgreSQL server that reads what the client sends and
 * counts its round trips: one per simple query (`Q`) and one per extended-protocol batch, which ends
 * with a `Sync` (`S`). The driver waits for each answer before it sends the next, so a round trip is
 * what a request waits on the network for, however the statements are written (prepared or not).
 */
import { once } from "node:events";
import { type Server, type Socket, connect, createServer } from "node:net";

/** A running relay. */
export interface WireCounter {
  /** The database URL with the relay's address in place of the server's. */
  readonly url: string;
  /** The round trips since the last `take()`, each as its statement's first words (or `sync`). */
  take(): string[];
  close(): Promise<void>;
}

// Untyped messages before the startup message: SSLRequest and GSSENCRequest (protocol section 55.7).
const NEGOTIATION_CODES = new Set([80_877_103, 80_877_104]);

/** Splits the frontend side of one connection into messages and reports the round trips. */
class FrontendReader {
  #buffer = Buffer.alloc(0);
  #started = false;
  /** The statement of the batch in progress, as the last Parse or Bind names it. */
  #pending: string | undefined;
  /** The text of each named statement this connection prepared, by name. */
  readonly #prepared = new Map<string, string>();

  constructor(private readonly onRoundTrip: (statement: string) => void) {}

  push(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      if (!this.#started) {
        if (this.#buffer.length < 8) return;
        const length = this.#buffer.readInt32BE(0);
        if (this.#buffer.length < length) return;
        this.#started = !NEGOTIATION_CODES.has(this.#buffer.readInt32BE(4));
        this.#buffer = this.#buffer.subarray(length);
        continue;
      }
      if (this.#buffer.length < 5) return;
      const length = this.#buffer.readInt32BE(1);
      if (this.#buffer.length < 1 + length) return;
      this.#message(String.fromCharCode(this.#buffer[0] ?? 0), this.#buffer.subarray(5, 1 + length));
      this.#buffer = this.#buffer.subarray(1 + length);
    }
  }

  #message(type: string, body: Buffer): void {
    const strings = (): string[] => body.toString("utf8").split("\0");
    if (type === "Q") this.onRoundTrip(firstWords(strings()[0] ?? ""));
    // Parse: statement name, then its text. Bind: portal name, then the statement name.
    else if (type === "P") {
      const [name = "", text = ""] = strings();
      this.#pending = firstWords(text);
      if (name !== "") this.#prepared.set(name, this.#pending);
    } else if (type === "B") {
      const name = strings()[1] ?? "";
      this.#pending ??= this.#prepared.get(name) ?? name;
    } else if (type === "S") {
      this.onRoundTrip(this.#pending ?? "sync");
      this.#pending = undefined;
    }
  }
}

function firstWords(sql: string): string {
  return sql.trim().split(/\s+/).slice(0, 6).join(" ");
}

/** Starts a relay in front of the server of `databaseUrl`, on 127.0.0.1 at a free port. */
export async function startWireCounter(databaseUrl: string): Promise<WireCounter> {
  const target = new URL(databaseUrl);
  let roundTrips: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const reader = new FrontendReader((statement) => roundTrips.push(statement));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on("end", () => upstream.end());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);
  return {
    url: url.toString(),
    take: () => {
      const taken = roundTrips;
      roundTrips = [];
      return taken;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}
