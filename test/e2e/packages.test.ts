/**
 * The packages as `npm pack` made them: what a Pulumi program installs carries no server and no
 * install script, the server's package carries everything its command runs, and its command, started
 * on a Node.js without `node:sqlite`, says which Node.js it needs.
 */
import { execFile, execFileSync } from "node:child_process";
import { realpath } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

import { afterAll, describe, expect, inject, it } from "vitest";

import { UserSession } from "./user-path";

interface Manifest {
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

/** The files of a packed tarball and its package.json. */
function packed(spec: string): { files: string[]; manifest: Manifest } {
  const tarball = spec.replace(/^file:/, "");
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
  const manifest = JSON.parse(
    execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }),
  ) as Manifest;
  return { files, manifest };
}

/**
 * A Node.js on this machine that cannot load `node:sqlite`, found by trying each one on PATH and in
 * the usual places; CI's machine has its system Node.js 20 beside the project's pinned 24. None is a
 * failure, not a skip: the server's refusal would then go unproven.
 */
async function nodeWithoutSqlite(): Promise<string> {
  const places = [
    ...(process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== ""),
    "/usr/bin",
    "/usr/local/bin",
  ];
  const tried = new Set<string>();
  for (const dir of places) {
    const node = await realpath(join(dir, "node")).catch(() => undefined);
    if (node === undefined || tried.has(node)) continue;
    tried.add(node);
    const loads = await promisify(execFile)(node, ["-e", "require('node:sqlite')"]).then(
      () => true,
      () => false,
    );
    if (!loads) return node;
  }
  throw new Error(
    `every Node.js found loads node:sqlite (${[...tried].join(", ")}): install one without it, such as Node.js 20`,
  );
}

describe("the packed packages", () => {
  let session: UserSession | undefined;

  afterAll(async () => {
    await session?.dispose();
  });

  it("the provider's pulls in no server, Fastify or PostgreSQL client", () => {
    const { files, manifest } = packed(inject("packages")["pulumi-notification-handlers"]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["undici", "yaml", "zod"]);
    expect(manifest.bin).toEqual({ "notification-handlers": "dist/cli/main.js" });
    expect(files.filter((f) => f.startsWith("package/dist/server/"))).toEqual([]);
    expect(files).toContain("package/dist/provider/runtime.js");
    // npm lists a dependency's install scripts on every install of it; the package is built when packed.
    const scripts = Object.keys(manifest.scripts ?? {});
    for (const script of ["preinstall", "install", "postinstall", "prepare"])
      expect(scripts).not.toContain(script);
  });

  it("the server's has its command, what it imports and its own Node.js floor", () => {
    const { files, manifest } = packed(inject("packages")["notification-handlers-server"]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["fastify", "pg", "zod"]);
    expect(manifest.bin).toEqual({ "notification-handlers-server": "dist/server/main.js" });
    expect(manifest.engines).toEqual({ node: "^22.15.0 || >=23.11.0" });
    for (const file of ["dist/server/main.js", "dist/sdk/client/catalog.js", "dist/cli/io.js"]) {
      expect(files).toContain(`package/${file}`);
    }
    expect(files.filter((f) => f.startsWith("package/dist/provider/"))).toEqual([]);
  });

  it("the server's command, installed and started on a Node.js without node:sqlite, says which it needs", async () => {
    const node = await nodeWithoutSqlite();
    // The quickstart's install, which its own test shares: the packed server among its dependencies.
    session = await UserSession.start("quickstart", { pathFirst: inject("enginePath") });
    for (const args of ["serve --port 0 --db :memory:", "keys create --db :memory: --user alice", "--help"]) {
      const result = await session.sh(
        `${JSON.stringify(node)} node_modules/.bin/notification-handlers-server ${args}`,
      );
      expect(result.code, args).toBe(1);
      expect(result.stdout, args).toBe("");
      expect(result.stderr, args).toMatch(
        /^notification-handlers-server: needs Node\.js 22\.15 or later \(23\.11 or later on the 23 line\) for its SQLite store \(node:sqlite\); this is Node\.js v\d+\.\d+\.\d+\n$/,
      );
    }
  });
});
