/**
 * The Python language host through the Pulumi CLI in project folders: the project's own where no
 * Pulumi is installed, else the installed one (the test holds for both). The programs register no
 * resource but the stack, whose outputs show what reached them; they run in one virtual environment
 * with the `pulumi` wheel, made once for the file.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import {
  mustRun,
  runCommand,
  scratchFolder,
  userEnvironment,
  type CommandResult,
} from "../../scripts/user-project";

/** The Python SDK, at the version of the CLI the engine helper builds. */
const PULUMI_WHEEL = "pulumi==3.259.0";

const TOKEN = "token-value-for-the-python-host-test";

/** A program that exports what reached it, or fails the way the config says. */
const PROGRAM = `
import os
import sys

import pulumi
from pulumi.runtime import settings

config = pulumi.Config()
failure = config.get("failure")
if failure == "throw":
    # Built at run time, so that the traceback's source line does not repeat the message.
    raise ValueError(" ".join(["the program failed", "on purpose"]))
if failure == "exit":
    sys.exit(3)

pulumi.export("greeting", config.require("greeting"))
pulumi.export("token", config.require_secret("token"))
pulumi.export("tokenIsSecret", pulumi.runtime.is_config_secret("hostpy:token"))
pulumi.export("project", pulumi.get_project())
pulumi.export("stack", pulumi.get_stack())
pulumi.export("organization", pulumi.get_organization())
pulumi.export("rootDirectory", pulumi.runtime.get_root_directory())
pulumi.export("cwd", os.getcwd())
pulumi.export("dryRun", pulumi.runtime.is_dry_run())
pulumi.export("parallel", settings.SETTINGS.parallel)
pulumi.export("python", sys.executable)
`;

describe("the Python language host, through the Pulumi CLI in a project folder", () => {
  let root = "";
  let venv = "";
  let env: NodeJS.ProcessEnv = {};

  /** Writes a project folder: Pulumi.yaml with the runtime given, and the files given. */
  async function project(name: string, runtime: string, files: Record<string, string>): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "Pulumi.yaml"), `name: ${name}\n${runtime}`);
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(dir, file, ".."), { recursive: true });
      await writeFile(join(dir, file), text);
    }
    return dir;
  }

  function pulumi(dir: string, args: string[], input?: string, extra: NodeJS.ProcessEnv = env) {
    return runCommand("pulumi", args, { cwd: dir, env: extra, ...(input === undefined ? {} : { input }) });
  }

  async function mustPulumi(dir: string, args: string[], input?: string): Promise<CommandResult> {
    const result = await pulumi(dir, args, input);
    if (result.code !== 0)
      throw new Error(
        `pulumi ${args.join(" ")} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`,
      );
    return result;
  }

  /** A new stack of the project with the greeting and the secret token set. */
  async function stack(dir: string, config: Record<string, string> = {}): Promise<void> {
    await mustPulumi(dir, ["stack", "init", "dev"]);
    await mustPulumi(dir, ["config", "set", "greeting", "hello"]);
    await mustPulumi(dir, ["config", "set", "--secret", "token"], TOKEN);
    for (const [key, value] of Object.entries(config)) await mustPulumi(dir, ["config", "set", key, value]);
  }

  async function outputs(dir: string): Promise<Record<string, unknown>> {
    const shown = await mustPulumi(dir, ["stack", "output", "--json", "--show-secrets"]);
    return JSON.parse(shown.stdout) as Record<string, unknown>;
  }

  beforeAll(async () => {
    root = await scratchFolder("python-host");
    await mkdir(join(root, "state"));
    env = userEnvironment({
      home: join(root, "home"),
      pathFirst: inject("enginePath"),
      extra: {
        PULUMI_HOME: join(root, "home", ".pulumi"),
        PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "test-only",
      },
    });
    venv = join(root, "venv");
    await mustRun("python3", ["-m", "venv", venv], { cwd: root, env });
    // pip's cache of the machine's home makes the later runs quick; with no byte-compiling, the
    // programs compile only the modules they import.
    const pip = ["--quiet", "--disable-pip-version-check", "--no-compile"];
    const cache = ["--cache-dir", join(homedir(), ".cache", "pip")];
    await mustRun(join(venv, "bin", "pip"), ["install", ...pip, ...cache, PULUMI_WHEEL], { cwd: root, env });
  });

  afterAll(async () => {
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("runs __main__.py in the virtualenv Pulumi.yaml names: preview, up with config and secrets", async () => {
    const runtime = "runtime:\n  name: python\n  options:\n    virtualenv: ../venv\n";
    const dir = await project("hostpy", runtime, { "__main__.py": PROGRAM });
    await stack(dir);

    const preview = await mustPulumi(dir, ["preview"]);
    expect(preview.stdout).toMatch(/\+ 1 to create/);
    expect(preview.stdout).toMatch(/dryRun\s*: true/);

    const up = await mustPulumi(dir, ["up", "--yes", "--parallel", "3"]);
    expect(up.stdout).toMatch(/1 created/);
    expect(up.stdout).toMatch(/token\s*: \[secret\]/);
    expect(`${preview.stdout}${preview.stderr}${up.stdout}${up.stderr}`).not.toContain(TOKEN);
    expect(await outputs(dir)).toEqual({
      greeting: "hello",
      token: TOKEN,
      tokenIsSecret: true,
      project: "hostpy",
      stack: "dev",
      organization: "organization",
      rootDirectory: dir,
      cwd: dir,
      dryRun: false,
      parallel: 3,
      python: join(venv, "bin", "python"),
    });
    expect((await mustPulumi(dir, ["stack", "output", "token"])).stdout.trim()).toBe("[secret]");
    const state = await readFile(join(root, "state", ".pulumi", "stacks", "hostpy", "dev.json"), "utf8");
    expect(state).not.toContain(TOKEN);
  });

  it("runs the file Pulumi.yaml's `main` names with python3 on PATH, its folder importable", async () => {
    const dir = await project("hostpymain", "runtime: python\nmain: src/app.py\n", {
      "src/app.py": 'import pulumi\nimport helper\n\npulumi.export("helper", helper.VALUE)\n',
      "src/helper.py": 'VALUE = "imported"\n',
    });
    await mustPulumi(dir, ["stack", "init", "dev"]);
    // The virtual environment's commands first, as `source venv/bin/activate` would have them.
    const activated = { ...env, PATH: [join(venv, "bin"), env.PATH ?? ""].join(delimiter) };
    const up = await pulumi(dir, ["up", "--yes"], undefined, activated);
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(await outputs(dir)).toEqual({ helper: "imported" });
  });

  it("fails the update when the program raises, showing its message once, with its own traceback", async () => {
    const runtime = "runtime:\n  name: python\n  options:\n    virtualenv: ../venv\n";
    const dir = await project("hostpythrow", runtime, { "__main__.py": PROGRAM });
    await stack(dir, { failure: "throw" });
    const up = await pulumi(dir, ["up", "--yes"]);
    expect(up.code).not.toBe(0);
    const output = `${up.stdout}\n${up.stderr}`;
    expect(output.split("the program failed on purpose").length - 1).toBe(1);
    expect(output).toContain(`File "${join(dir, "__main__.py")}", line`);
    expect(output).not.toMatch(/python-runner\.py|non-zero exit code/);
  });

  it("fails the update when the program exits non-zero without a message, and says so", async () => {
    const runtime = "runtime:\n  name: python\n  options:\n    virtualenv: ../venv\n";
    const dir = await project("hostpyexit", runtime, { "__main__.py": PROGRAM });
    await stack(dir, { failure: "exit" });
    const up = await pulumi(dir, ["up", "--yes"]);
    expect(up.code).not.toBe(0);
    expect(`${up.stdout}\n${up.stderr}`).toContain("Program exited with non-zero exit code: 3");
  });

  it("names the virtualenv option when the folder it names is no virtual environment", async () => {
    const runtime = "runtime:\n  name: python\n  options:\n    virtualenv: missing-venv\n";
    const dir = await project("hostpynovenv", runtime, { "__main__.py": PROGRAM });
    await stack(dir);
    const up = await pulumi(dir, ["up", "--yes"]);
    expect(up.code).not.toBe(0);
    expect(`${up.stdout}\n${up.stderr}`).toContain(
      `runtime.options.virtualenv: ${join(dir, "missing-venv")} is not a virtual environment`,
    );
  });
});
