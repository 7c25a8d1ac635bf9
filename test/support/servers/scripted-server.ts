/**
 * Test helpers for the client: a tiny scripted HTTP server on 127.0.0.1, port 0, whose handler sees
 * each call with its number, and a virtual clock whose `sleep` advances time instead of waiting.
 */

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

import { onTestFinished } from "vitest";

/** One request as the scripted server received it. */
export interface RecordedCall {
  /** 1 for the first request the server received. */
  n: number;
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Remote port of the connection, to tell connections apart. */
  remotePort: number | undefined;
}

/** Answers one call; may destroy the socket, hang, or write a response. */
export type ScriptHandler = (call: RecordedCall, res: ServerResponse, req: IncomingMessage) => unknown;

/** A running scripted server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  port: number;
  calls: RecordedCall[];
  close(): Promise<void>;
}

/** Starts a scripted server, on `port` when one is given; close it in an after hook. */
export async function startScriptedServer(handler: ScriptHandler, port = 0): Promise<ScriptedServer> {
  const calls: RecordedCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const call: RecordedCall = {
        n: calls.length + 1,
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        remotePort: req.socket.remotePort,
      };
      calls.push(call);
      Promise.resolve(handler(call, res, req)).catch((err: unknown) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A scripted server (see {@link startScriptedServer}) for the running test, closed when the test ends. */
export async function scriptedServerForTest(handler: ScriptHandler, port = 0): Promise<ScriptedServer> {
  const server = await startScriptedServer(handler, port);
  onTestFinished(() => server.close());
  return server;
}

/** Writes a JSON answer. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

/** Writes an error answer in the API's shape. */
export function apiError(
  res: ServerResponse,
  status: number,
  title: string,
  extra: {
    detail?: string;
    parameter?: string;
    bodyStatus?: number | string;
    headers?: Record<string, string>;
  } = {},
): void {
  const entry: Record<string, unknown> = { title, status: extra.bodyStatus ?? status };
  if (extra.detail !== undefined) entry.detail = extra.detail;
  if (extra.parameter !== undefined) entry.source = { parameter: extra.parameter };
  json(res, status, { errors: [entry] }, extra.headers);
}

/** A handler as the reference server returns it. */
export function handler(id: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    type: "email",
    name: `handler ${id}`,
    settings: { email: `h${id}@example.com` },
    is_enabled: true,
    last_datetime: null,
    datetime: "2025-01-02 03:04:05",
    ...overrides,
  };
}

/** Parses the multipart body the client sent into name -> value. */
export function formFields(call: RecordedCall): Record<string, string> {
  const type = call.headers["content-type"] ?? "";
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) throw new Error(`not multipart: ${type}`);
  const out: Record<string, string> = {};
  for (const part of call.body.split(`--${marker}`)) {
    const match = /name="([^"]+)"\r\n\r\n([\s\S]*)\r\n$/.exec(part);
    if (match?.[1] !== undefined) out[match[1]] = match[2] ?? "";
  }
  return out;
}

/** A virtual clock: `sleep(ms)` moves time forward by `ms` (from when it was called) and returns at once. */
export interface VirtualClock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Every sleep requested, in order. */
  sleeps: number[];
}

/** Makes a virtual clock starting at `start` milliseconds. */
export function virtualClock(start = 1_750_000_000_000): VirtualClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      const target = now + ms;
      await Promise.resolve();
      if (target > now) now = target;
    },
  };
}

/**
 * A virtual clock for concurrent tests: sleepers wake in time order, and time moves on only while
 * `isIdle()` holds (no request in flight), so requests take no virtual time, as they take far less
 * than a rate-limit window in reality.
 */
export function scheduledClock(isIdle: () => boolean, start = 1_750_000_000_000): VirtualClock {
  let now = start;
  const sleeps: number[] = [];
  const timers: { target: number; wake: () => void }[] = [];
  let pumping = false;
  const pump = (): void => {
    if (pumping) return;
    pumping = true;
    setTimeout(() => {
      pumping = false;
      if (timers.length === 0) return;
      if (!isIdle()) return pump();
      const next = Math.min(...timers.map((t) => t.target));
      if (next > now) now = next;
      for (const timer of timers.filter((t) => t.target <= now)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.wake();
      }
      if (timers.length > 0) pump();
    }, 1);
  };
  return {
    now: () => now,
    sleeps,
    sleep: (ms: number) =>
      new Promise<void>((wake) => {
        sleeps.push(ms);
        timers.push({ target: now + ms, wake });
        pump();
      }),
  };
}
