/**
 * The fault-injecting proxy the e2e suite runs (test/support/servers/fault-proxy-process.mts), as its own process in front
 * of a tiny server that counts what reaches it: each kind of fault does what it says, a proxy
 * with no faults passes answers through untouched, and a held answer waits for its release.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import { type FaultProxy, type FaultProxyOptions, startFaultProxy } from "../support/servers/fault-proxy";

const PROXY = join(__dirname, "..", "support", "servers", "fault-proxy-process.mts");

let target: Server;
let targetUrl = "";
let arrived = 0;
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  target = createServer((req, res) => {
    arrived++;
    req.resume();
    req.on("end", () => {
      res.writeHead(201, { "content-type": "application/json", "x-answered-by": "target" });
      res.end(JSON.stringify({ data: { id: arrived } }));
    });
  });
  target.listen(0, "127.0.0.1");
  await once(target, "listening");
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const p of proxies) await p.close();
  target.close();
  target.closeAllConnections();
});

const proxy = async (options: FaultProxyOptions): Promise<FaultProxy> => {
  const started = await startFaultProxy(targetUrl, options);
  proxies.push(started);
  return started;
};

async function post(url: string, timeoutMs = 5_000): Promise<{ status: number; body: string } | Error> {
  try {
    const res = await fetch(`${url}/api/notification-handlers`, {
      method: "POST",
      body: "name=x&type=internal_notification",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: await res.text() };
  } catch (error) {
    return error as Error;
  }
}

describe("the fault proxy", () => {
  it("passes answers through untouched at rate 0", async () => {
    const { url } = await proxy({ rate: 0 });
    const before = arrived;
    const answer = await post(url);
    expect(answer).toMatchObject({ status: 201 });
    expect(JSON.parse((answer as { body: string }).body)).toEqual({ data: { id: arrived } });
    expect(arrived).toBe(before + 1);
  });

  it.each([
    { kind: "5xx-before", reaches: false, sees: "5xx" },
    { kind: "5xx-after", reaches: true, sees: "5xx" },
    { kind: "429", reaches: false, sees: "429" },
    { kind: "reset-before", reaches: false, sees: "error" },
    { kind: "reset-after", reaches: true, sees: "error" },
    { kind: "slow", reaches: true, sees: "timeout" },
  ])("$kind: the server sees it: $reaches; the client sees $sees", async ({ kind, reaches, sees }) => {
    const { url, faults } = await proxy({ rate: 1, kinds: [kind], slowMs: 2_000 });
    const before = arrived;
    // Long enough for a forwarded answer on a busy machine; short enough to give up on a slow one.
    const answer = await post(url, kind === "slow" ? 1_000 : 5_000);
    expect(arrived - before).toBe(reaches ? 1 : 0);
    if (sees === "5xx") expect([500, 502, 503]).toContain((answer as { status: number }).status);
    if (sees === "429") expect(answer).toMatchObject({ status: 429 });
    if (sees === "error") expect(answer).toBeInstanceOf(Error);
    if (sees === "timeout") expect((answer as Error).name).toBe("TimeoutError");
    // The proxy reports the fault on its stdout, a channel apart from the answer: it may come after.
    await vi.waitFor(() => expect(faults).toEqual([`fault ${kind} POST /api/notification-handlers`]));
  });

  it("holds the answers of a method, handled at the server, until they are released", async () => {
    const p = await proxy({ rate: 0 });
    await p.hold("POST");
    const before = arrived;
    const answer = post(p.url);
    // The proxy reports a held answer once the server has answered it.
    for (let i = 0; i < 250 && p.held.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(p.held).toEqual(["held POST /api/notification-handlers"]);
    expect(arrived).toBe(before + 1);
    const other = await fetch(`${p.url}/api/notification-handlers`); // another method passes
    expect(other.status).toBe(201);
    let settled = false;
    void answer.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    await p.release("POST");
    expect(await answer).toMatchObject({ status: 201 });
    expect(await post(p.url)).toMatchObject({ status: 201 }); // released: no longer held
    expect(p.held).toHaveLength(1);
  });

  it("refuses a target off the loopback", async () => {
    const child = spawn(process.execPath, [PROXY, "--target", "http://example.com"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const [code] = (await once(child, "exit")) as [number];
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/loopback/i);
  });
});
