/**
 * The packages as `npm pack` made them: what a Pulumi program installs carries no server and no
 * install script; the server's package carries everything its command runs, and installed alone it
 * brings nothing of Pulumi, serves and issues keys; its command, started on a Node.js without
 * `node:sqlite`, says which Node.js it needs.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdir, realpath, rm, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import {
  REPOSITORY_ROOT,
  mustRun,
  runCommand,
  scratchFolder,
  userEnvironment,
} from "../../scripts/support/user-project";
import { seedDependencies } from "../support/engine/user-path";

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
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

/** Every package name of an `npm ls --all --json` tree, the project's own apart. */
function namesIn(tree: { dependencies?: Record<string, object> }): string[] {
  return Object.entries(tree.dependencies ?? {}).flatMap(([name, node]) => [name, ...namesIn(node)]);
}

describe("the packed packages", () => {
  let scratch: string | undefined;
  /** A project that installed the server's tarball alone, as its README says, at the quickstart's pins. */
  let project: string;
  let env: NodeJS.ProcessEnv;
  let bin: string;

  beforeAll(async () => {
    scratch = await scratchFolder("server-alone");
    project = join(scratch, "project");
    env = userEnvironment({ home: join(scratch, "home"), pathFirst: inject("enginePath") });
    await mkdir(project);
    const server = inject("packages")["notification-handlers-server"];
    const manifest = { private: true, devDependencies: { "notification-handlers-server": server } };
    await writeFile(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    await seedDependencies(
      project,
      env,
      join(REPOSITORY_ROOT, "examples", "quickstart", "package-lock.json"),
    );
    bin = join(project, "node_modules", ".bin", "notification-handlers-server");
  });

  afterAll(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it("the provider's pulls in no server, Fastify or PostgreSQL client", () => {
    const { files, manifest } = packed(inject("packages")["pulumi-notification-handlers"]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["undici", "yaml", "zod"]);
    expect(manifest.bin).toEqual({ "notification-handlers": "dist/cli/main.js" });
    expect(files.filter((f) => f.startsWith("package/dist/server/"))).toEqual([]);
    expect(files).toContain("package/dist/provider/dynamic/runtime.js");
    // The command's failure convention, which cli/io.ts takes from the package it shares with the server.
    expect(files).toContain("package/dist/shared/command-line.js");
    // The ready policy pack, which `--policy-pack` names where npm installs it, and what it runs.
    for (const file of ["PulumiPolicy.yaml", "package.json", "index.cjs"])
      expect(files).toContain(`package/policy-pack/${file}`);
    expect(files).toContain("package/dist/provider/policy/index.js");
    // npm lists a dependency's install scripts on every install of it; the package is built when packed.
    const scripts = Object.keys(manifest.scripts ?? {});
    for (const script of ["preinstall", "install", "postinstall", "prepare"])
      expect(scripts).not.toContain(script);
  });

  it("the server's has its command, what it imports as #shared and its own Node.js floor", () => {
    const { files, manifest } = packed(inject("packages")["notification-handlers-server"]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["fastify", "pg", "zod"]);
    expect(manifest.peerDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ "notification-handlers-server": "dist/server/main.js" });
    expect(manifest.engines).toEqual({ node: "^22.15.0 || >=23.11.0" });
    for (const file of ["dist/server/main.js", "dist/shared/index.js", "dist/sdk/client/domain/catalog.js"]) {
      expect(files).toContain(`package/${file}`);
    }
    expect(files.filter((f) => /^package\/dist\/(cli|provider)\//.test(f))).toEqual([]);
  });

  it("the server's, installed alone, brings nothing of Pulumi, issues a key and serves it", async () => {
    const { stdout } = await mustRun("npm", ["ls", "--all", "--json"], { cwd: project, env });
    const names = namesIn(JSON.parse(stdout) as { dependencies?: Record<string, object> });
    expect(names).toEqual(expect.arrayContaining(["notification-handlers-server", "fastify", "pg", "zod"]));
    // Neither @pulumi/* nor pulumi-notification-handlers, whose peer dependency is @pulumi/pulumi.
    expect(names.filter((name) => name.includes("pulumi"))).toEqual([]);

    const created = await runCommand(
      process.execPath,
      [bin, "keys", "create", "--db", "./server.db", "--user", "alice"],
      { cwd: project, env },
    );
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(/^nhk_\S+$/.test(key), "one key on stdout").toBe(true); // not printed: it is a credential

    const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--db", "./server.db"], {
      cwd: project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    server.stderr.setEncoding("utf8").on("data", (text: string) => (log += text));
    const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        server.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${log.trim()}`)));
        createInterface({ input: server.stdout }).on("line", (line) => {
          const match = /^listening on (\S+)$/.exec(line);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
      });
      // A create goes through the catalog's rules, which the package carries in dist/shared.
      const create = await fetch(`${url}/api/notification-handlers`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
        body: "type=email&name=On-call&email=oncall%40example.com",
      });
      expect(create.status, await create.clone().text()).toBe(201);
      const list = await fetch(`${url}/api/notification-handlers`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(((await list.json()) as { data: { name: string }[] }).data.map((h) => h.name)).toEqual([
        "On-call",
      ]);
    } finally {
      server.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it("the server's command, installed and started on a Node.js without node:sqlite, says which it needs", async () => {
    const node = await nodeWithoutSqlite();
    for (const args of ["serve --port 0 --db :memory:", "keys create --db :memory: --user alice", "--help"]) {
      const result = await runCommand(node, [bin, ...args.split(" ")], { cwd: project, env });
      expect(result.code, args).toBe(1);
      expect(result.stdout, args).toBe("");
      expect(result.stderr, args).toMatch(
        /^notification-handlers-server: needs Node\.js 22\.15 or later \(23\.11 or later on the 23 line\) for its SQLite store \(node:sqlite\); this is Node\.js v\d+\.\d+\.\d+\n$/,
      );
    }
  });
});
