/**
 * Starts the fault-injecting proxy (fault-proxy-process.mts, run by Node.js as TypeScript) as its own process on
 * 127.0.0.1, in front of `target`, and collects the faults it reports. Shared by the integration and
 * e2e tests; `close()` stops the process.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";

const SCRIPT = join(__dirname, "fault-proxy-process.mts");

/** A running proxy. */
export interface FaultProxy {
  url: string;
  /** One line per fault injected so far: `fault KIND METHOD PATH`. */
  faults: string[];
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
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const faults: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the fault proxy exited with ${code}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const listening = /^listening on (\S+)$/.exec(line);
      if (listening?.[1] !== undefined) resolve(listening[1]);
      else if (line.startsWith("fault ")) faults.push(line);
    });
  });
  return {
    url,
    faults,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    },
  };
}
