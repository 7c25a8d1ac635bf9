/**
 * Starts the fault-injecting proxy (fault-proxy-process.mts, run by Node.js as TypeScript) as its own process on
 * 127.0.0.1, in front of `target`, and collects the faults it reports. Shared by the integration and
 * e2e tests; `close()` stops the process, or the end of the test for `faultProxyForTest`.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { onTestFinished } from "vitest";

const SCRIPT = join(__dirname, "fault-proxy-process.mts");

/** A running proxy. */
export interface FaultProxy {
  url: string;
  /** One line per fault injected so far: `fault KIND METHOD PATH`. */
  faults: string[];
  /** One line per answer held so far (handled at the server, kept back): `held METHOD PATH`. */
  held: string[];
  /** Holds the answers to the requests of `method` that arrive once it resolves. */
  hold(method: string): Promise<void>;
  /** Sends the answers held for `method` and stops holding them; resolves once the proxy did. */
  release(method: string): Promise<void>;
  close(): Promise<void>;
}

/** What the proxy injects (see fault-proxy-process.mts). */
export interface FaultProxyOptions {
  rate: number;
  seed?: number;
  slowMs?: number;
  kinds?: string[];
}

/** Starts the proxy and resolves once it listens. */
export async function startFaultProxy(target: string, options: FaultProxyOptions): Promise<FaultProxy> {
  const args = [SCRIPT, "--target", target, "--rate", String(options.rate)];
  if (options.seed !== undefined) args.push("--seed", String(options.seed));
  if (options.slowMs !== undefined) args.push("--slow-ms", String(options.slowMs));
  if (options.kinds !== undefined) args.push("--kinds", options.kinds.join(","));
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  const faults: string[] = [];
  const held: string[] = [];
  // The proxy acknowledges each command with a line: the waiters for each line, in order.
  const acknowledged = new Map<string, (() => void)[]>();
  const command = (line: string): Promise<void> =>
    new Promise((resolve) => {
      acknowledged.set(line, [...(acknowledged.get(line) ?? []), resolve]);
      child.stdin.write(`${line}\n`);
    });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the fault proxy exited with ${code}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const listening = /^listening on (\S+)$/.exec(line);
      if (listening?.[1] !== undefined) resolve(listening[1]);
      else if (line.startsWith("fault ")) faults.push(line);
      else if (line.startsWith("held ")) held.push(line);
      else if (line.endsWith(" done")) acknowledged.get(line.slice(0, -" done".length))?.shift()?.();
    });
  });
  return {
    url,
    faults,
    held,
    hold: (method) => command(`hold ${method}`),
    release: (method) => command(`release ${method}`),
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    },
  };
}

/** A proxy (see {@link startFaultProxy}) for the running test, stopped when the test ends. */
export async function faultProxyForTest(target: string, options: FaultProxyOptions): Promise<FaultProxy> {
  const proxy = await startFaultProxy(target, options);
  onTestFinished(() => proxy.close());
  return proxy;
}
