/**
 * The Node.js language host through the Pulumi CLI in project folders: the project's own where no
 * Pulumi is installed, else the installed one (the test holds for both); and which one the engine
 * helper picks. The programs register
 * component resources only, which need no provider plugin, and take @pulumi/pulumi from the
 * repository's node_modules: installing it is what the examples' tests prove.
 */
import { existsSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import { ensureEngine } from "../../scripts/engine/engine";
import { REPOSITORY_ROOT, scratchFolder } from "../../scripts/support/user-project";
import { EXIT_3, languageHostProjects, occurrences } from "../support/engine/language-host-project";

const TOKEN = "token-value-for-the-host-test";

/** A program that registers `first`, then fails the way the config says, then registers `second`. */
const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";

class Thing extends pulumi.ComponentResource {
  constructor(name: string) {
    super("hosttest:index:Thing", name, {}, {});
    this.registerOutputs({});
  }
}

const config = new pulumi.Config();
new Thing("first");
const failure = config.get("failure");
if (failure === "throw") throw new Error("the program failed on purpose");
if (failure === "exit") process.exit(3);
new Thing("second");

export const greeting = config.require("greeting");
export const token = config.requireSecret("token");
export const parallel = process.env.PULUMI_NODEJS_PARALLEL ?? "";
export const args = process.argv.slice(2).join(" ");
export const language = "typescript";
`;

const JS_PROGRAM = `
"use strict";
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config();
new pulumi.ComponentResource("hosttest:index:Thing", "only");
exports.greeting = config.require("greeting");
exports.language = "javascript";
`;

describe("the Node.js language host, through the Pulumi CLI in a project folder", () => {
  const host = languageHostProjects("language-host", TOKEN);
  const { mustPulumi } = host;

  /** Writes a project folder: Pulumi.yaml, package.json, the files given, node_modules linked. */
  async function project(name: string, manifest: object, files: Record<string, string>): Promise<string> {
    const dir = await host.project(name, "runtime: nodejs\n", {
      ...files,
      "package.json": JSON.stringify({ name, private: true, ...manifest }),
    });
    await symlink(join(REPOSITORY_ROOT, "node_modules"), join(dir, "node_modules"));
    return dir;
  }

  async function resourceNames(dir: string): Promise<string[]> {
    const exported = JSON.parse((await mustPulumi(dir, ["stack", "export"])).stdout) as {
      deployment: { resources?: { urn: string }[] };
    };
    return (exported.deployment.resources ?? []).map((r) => r.urn.split("::").at(-1) ?? "");
  }

  it("runs a TypeScript program: preview, up with config and secrets, refresh, no change after, destroy", async () => {
    const dir = await project("hostts", {}, { "index.ts": PROGRAM });
    await host.stack(dir);

    const preview = await mustPulumi(dir, ["preview"]);
    expect(preview.stdout).toMatch(/\+ 3 to create/);
    expect(await resourceNames(dir)).toEqual([]);

    const up = await mustPulumi(dir, ["up", "--yes", "--parallel", "3"]);
    expect(up.stdout).toMatch(/3 created/);
    expect((await resourceNames(dir)).sort()).toEqual(["first", "hostts-dev", "second"]);
    // The CLI found the host next to itself, as in an installed Pulumi, not elsewhere on PATH.
    expect(`${up.stdout}${up.stderr}`).not.toMatch(/using pulumi-language-nodejs from \$PATH/);
    expect(await host.outputs(dir)).toMatchObject({
      greeting: "hello",
      token: TOKEN,
      parallel: "3",
      language: "typescript",
      args: "",
    });
    await host.expectTokenKept(dir, "hostts");

    await mustPulumi(dir, ["refresh", "--yes"]);
    await mustPulumi(dir, ["preview", "--expect-no-changes"]);
    const destroy = await mustPulumi(dir, ["destroy", "--yes"]);
    expect(destroy.stdout).toMatch(/3 deleted/);
    expect(await resourceNames(dir)).toEqual([]);
    await host.expectTokenOutOfState("hostts");
  });

  it("runs a JavaScript program named by `main` in package.json; a policy pack with nothing installed is refused", async () => {
    const dir = await project("hostjs", { main: "lib/program.js" }, { "lib/program.js": JS_PROGRAM });
    await host.stack(dir);
    await mustPulumi(dir, ["up", "--yes"]);
    const outputs = JSON.parse((await mustPulumi(dir, ["stack", "output", "--json"])).stdout) as Record<
      string,
      string
    >;
    expect(outputs).toEqual({ greeting: "hello", language: "javascript" });
    // A policy pack with nothing installed: the host's RunPlugin says what to do, the preview fails.
    const pack = await scratchFolder("bare-policy-pack");
    await writeFile(join(pack, "PulumiPolicy.yaml"), "runtime: nodejs\n");
    const preview = await host.pulumi(dir, ["preview", "--policy-pack", pack]);
    await rm(pack, { recursive: true, force: true });
    expect(preview.code).not.toBe(0);
    expect(`${preview.stdout}${preview.stderr}`).toContain(
      `@pulumi/pulumi is not installed for the policy pack in ${pack}: run \`npm install\` in the pack's folder first`,
    );
    await mustPulumi(dir, ["destroy", "--yes"]);
  });

  it("fails the update when the program throws, showing its message once and creating nothing after it", async () => {
    const dir = await project("hostthrow", {}, { "index.ts": PROGRAM });
    await host.stack(dir, { failure: "throw" });
    const output = await host.failedUp(dir);
    expect(occurrences(output, "the program failed on purpose")).toBe(1);
    expect(output).not.toMatch(/non-zero exit code/);
    expect(await resourceNames(dir)).not.toContainEqual(expect.stringContaining("second"));
  });

  it("fails the update when the program exits non-zero without a message, and says so", async () => {
    const dir = await project("hostexit", {}, { "index.ts": PROGRAM });
    await host.stack(dir, { failure: "exit" });
    expect(await host.failedUp(dir)).toContain(EXIT_3);
    expect(await resourceNames(dir)).not.toContainEqual(expect.stringContaining("second"));
  });
});

describe("which language host the engine helper picks", () => {
  let root = "";

  beforeAll(async () => {
    root = await scratchFolder("engine-helper");
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /**
   * A folder on PATH with the engine's CLI, as an installed Pulumi has it, a cache of its own, and the
   * environment that says so (the helper is given it: the tests' own stays as it is).
   */
  async function machine(
    name: string,
  ): Promise<{ installed: string; cache: string; env: NodeJS.ProcessEnv }> {
    const installed = join(root, name, "pulumi", "bin");
    const cache = join(root, name, "cache");
    await mkdir(installed, { recursive: true });
    await symlink(join(inject("engineBinDir"), "pulumi"), join(installed, "pulumi"));
    const env = {
      ...process.env,
      PATH: [installed, dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
      XDG_CACHE_HOME: cache,
    };
    return { installed, cache, env };
  }

  it("prefers an installed host next to the CLI, language by language", async () => {
    const { installed, env } = await machine("installed");
    await writeFile(join(installed, "pulumi-language-nodejs"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    const engine = await ensureEngine({ projectRoot: REPOSITORY_ROOT, log: () => undefined, env });
    expect(engine.languageHosts.nodejs).toEqual({ dir: installed, source: "installed" });
    // No installed Python host: the project's own, in a folder without a Node.js launcher to hide the installed one.
    const python = engine.languageHosts.python;
    expect(python.source).toBe("project");
    expect(existsSync(join(python.dir, "pulumi-language-python"))).toBe(true);
    expect(existsSync(join(python.dir, "pulumi-language-nodejs"))).toBe(false);
  });

  it("else runs the project's own, and deletes hosts built from withdrawn sources without running them", async () => {
    const { cache, env } = await machine("bare");
    const withdrawn = [
      join(cache, "pulumi-language-nodejs", "pulumi-language-nodejs"),
      join(cache, "pulumi-notification-handlers", "engine", "v3.259.0", "bin", "pulumi-language-nodejs"),
    ];
    const ran = join(root, "bare", "ran");
    for (const path of withdrawn) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `#!/bin/sh\ntouch ${JSON.stringify(ran)}\n`, { mode: 0o755 });
    }
    const engine = await ensureEngine({ projectRoot: REPOSITORY_ROOT, log: () => undefined, env });
    expect(engine.languageHosts.nodejs.source).toBe("project");
    expect(existsSync(join(engine.languageHosts.nodejs.dir, "pulumi-language-nodejs"))).toBe(true);
    for (const path of withdrawn) expect(existsSync(path), path).toBe(false);
    expect(existsSync(ran)).toBe(false);
  });
});
