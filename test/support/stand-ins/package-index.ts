/**
 * A loopback stand-in for PyPI holding the release's Python SDK: pypiserver (pinned beside the
 * release's Python tools, scripts/release/tools.ts) serving a folder with the wheel and the sdist on
 * 127.0.0.1, every other project redirected to PyPI. Its request log proves that pip took the SDK's
 * wheel from it: the SDK's name never reaches PyPI, where anyone may hold it. It accepts unauthenticated
 * uploads (`twine upload --repository-url <url>`), as a release workflow would publish.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { copyFile, mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";

import { expect } from "vitest";

import { PYTHON_DISTRIBUTION } from "../../../scripts/release/release";
import { ensurePythonTools } from "../../../scripts/release/tools";
import type { Registries } from "./registries";

/** Where pip finds every project the stand-in does not hold. */
const PYPI_SIMPLE = "https://pypi.org/simple/";

/** One request the index answered, from its log. */
export interface IndexRequest {
  method: string;
  path: string;
  status: number;
}

/** The running index. */
export interface PackageIndex {
  /** `http://127.0.0.1:PORT`: twine's `--repository-url`. */
  url: string;
  /** `http://127.0.0.1:PORT/simple/`: pip's index URL. */
  simple: string;
  /** The folder it serves, and where uploads land. */
  packages: string;
  /** Its log (the server's banner, then a line per request), as a file. */
  log: string;
  /** What it answered so far, in order. */
  requests: IndexRequest[];
  close(): Promise<void>;
}

/**
 * Runs pypiserver's own entry point, and exits when its standard input closes: the index ends with
 * the test process that started it, however that ends.
 */
const LAUNCHER = `
import os, runpy, sys, threading
def exit_when_parent_goes():
    sys.stdin.buffer.read()
    os._exit(0)
threading.Thread(target=exit_when_parent_goes, daemon=True).start()
sys.argv[0] = "pypiserver"
runpy.run_module("pypiserver", run_name="__main__", alter_sys=True)
`;

/** A port that was free a moment ago: pypiserver binds the one it is given, and logs 0 for port 0. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The access line wsgiref writes per request: `... "GET /simple/x/ HTTP/1.1" 303 0`. */
const ACCESS_LINE = /"(\S+) (\S+) HTTP\/[\d.]+" (\d{3}) /;

/** Waits until the index answers its health check, or fails with its log when it exits first. */
async function whenListening(child: ChildProcess, url: string, output: () => string): Promise<void> {
  // Generous: Python starts slowly on a busy machine.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`pypiserver exited with ${child.exitCode ?? child.signalCode}:\n${output()}`);
    const healthy = await fetch(`${url}/health`).then(
      async (response) => {
        await response.arrayBuffer();
        return response.ok;
      },
      () => false,
    );
    if (healthy) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pypiserver did not answer on ${url} within a minute:\n${output()}`);
}

/**
 * Serves `files` (copied into `work/packages`) with pypiserver on 127.0.0.1; a project it does not
 * hold is redirected to PyPI. Tries another port when the one picked was taken in between.
 */
export async function startPackageIndex(files: readonly string[], work: string): Promise<PackageIndex> {
  const packages = join(work, "packages");
  await mkdir(packages, { recursive: true });
  for (const file of files) await copyFile(file, join(packages, basename(file)));
  const python = await ensurePythonTools(() => undefined);
  let failure: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const log = join(work, `index-${port}.log`);
    const logFile = createWriteStream(log);
    const child = spawn(
      python,
      [
        ...["-c", LAUNCHER, "run", "-v", "--server", "wsgiref", "-i", "127.0.0.1", "-p", String(port)],
        // Uploads need no credentials; downloads and listings never do.
        ...["-a", ".", "-P", ".", "--fallback-url", PYPI_SIMPLE, "--hash-algo", "sha256", packages],
      ],
      { cwd: work, env: { ...process.env, PYTHONUNBUFFERED: "1" }, stdio: ["pipe", "pipe", "pipe"] },
    );
    const requests: IndexRequest[] = [];
    const lines: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      stream.pipe(logFile, { end: false });
      createInterface({ input: stream }).on("line", (line) => {
        lines.push(line);
        const access = ACCESS_LINE.exec(line);
        // The health checks below are the test's own, not what a command asked.
        if (access !== null && access[2] !== "/health")
          requests.push({ method: access[1]!, path: access[2]!, status: Number(access[3]) });
      });
    }
    const exited = once(child, "exit");
    try {
      await whenListening(child, url, () => lines.join("\n"));
    } catch (error) {
      failure = error;
      child.kill("SIGKILL");
      await exited;
      logFile.end();
      if (lines.some((line) => line.includes("Address already in use"))) continue;
      throw error;
    }
    return {
      url,
      simple: `${url}/simple/`,
      packages,
      log,
      requests,
      async close() {
        if (child.exitCode === null && child.signalCode === null) {
          child.stdin.end();
          child.kill("SIGTERM");
          await exited;
        }
        await new Promise<void>((resolve) => logFile.end(resolve));
      },
    };
  }
  throw failure;
}

/** `Name` as pip spells it in an index's path: lower case, runs of `-`, `_` and `.` as one `-`. */
const normalizedName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, "-");

/**
 * The release's Python SDK (`<release>/pulumi_notification_handlers-<version>-py3-none-any.whl` and
 * its sdist) on a package index stand-in, as PyPI would serve it to `pip install`. Its variables
 * send pip there alone: a find-links folder or an extra index of the machine's could hold the name.
 */
export async function startPythonSdkIndex(release: string, work: string): Promise<Registries> {
  const version = basename(release).replace(/^v/, "");
  const wheel = `${PYTHON_DISTRIBUTION}-${version}-py3-none-any.whl`;
  const sdist = `${PYTHON_DISTRIBUTION}-${version}.tar.gz`;
  const index = await startPackageIndex(
    [join(release, wheel), join(release, sdist)],
    join(work, "package-index"),
  );
  return {
    env: {
      PIP_INDEX_URL: index.simple,
      PIP_EXTRA_INDEX_URL: undefined,
      PIP_FIND_LINKS: undefined,
      PIP_NO_INDEX: undefined,
    },
    expectServed() {
      // What it served itself: the SDK's page and its wheel; everything else went to PyPI.
      const served = index.requests.filter((r) => r.status !== 303);
      expect(
        served.map((r) => `${r.method} ${r.path} ${r.status}`),
        `what the package index served (${index.log})`,
      ).toEqual([`GET /simple/${normalizedName(PYTHON_DISTRIBUTION)}/ 200`, `GET /packages/${wheel} 200`]);
    },
    close: () => index.close(),
  };
}
