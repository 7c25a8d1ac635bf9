/**
 * The Python language host through the Pulumi CLI in project folders: the project's own where no
 * Pulumi is installed, else the installed one (the test holds for both). The programs register no
 * resource but the stack, whose outputs show what reached them; they run in one virtual environment
 * with the `pulumi` wheel and what it brings in as the Python example pins them, a copy of the one the
 * run made for the Python example (`copyPinnedVirtualenv`).
 */
import { readFile } from "node:fs/promises";
import { delimiter, join } from "node:path";

import { beforeAll, describe, expect, it } from "vitest";

import { REPOSITORY_ROOT } from "../../scripts/support/user-project";
import { EXIT_3, languageHostProjects, occurrences } from "../support/engine/language-host-project";
import { copyPinnedVirtualenv } from "../support/engine/user-path";

/** The Python example's pins: `pulumi` and all it brings in, exact. */
const PINS = join(REPOSITORY_ROOT, "examples", "python", "constraints.txt");

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

/** Pulumi.yaml's runtime: Python in the virtual environment `virtualenv` names. */
const inVirtualenv = (virtualenv: string): string =>
  `runtime:\n  name: python\n  options:\n    virtualenv: ${virtualenv}\n`;

describe("the Python language host, through the Pulumi CLI in a project folder", () => {
  const host = languageHostProjects("python-host", TOKEN);
  const { mustPulumi } = host;
  let venv = "";

  beforeAll(async () => {
    venv = join(host.root, "venv");
    await copyPinnedVirtualenv(await readFile(PINS, "utf8"), venv, host.env);
  });

  it("runs __main__.py in the virtualenv Pulumi.yaml names: preview, up with config and secrets", async () => {
    const dir = await host.project("hostpy", inVirtualenv("../venv"), { "__main__.py": PROGRAM });
    await host.stack(dir);

    expect(await host.previewAndUp(dir)).toEqual({
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
    await host.expectTokenKept(dir, "hostpy");
  });

  it("runs the file Pulumi.yaml's `main` names with python3 on PATH, its folder importable", async () => {
    const dir = await host.project("hostpymain", "runtime: python\nmain: src/app.py\n", {
      "src/app.py": 'import pulumi\nimport helper\n\npulumi.export("helper", helper.VALUE)\n',
      "src/helper.py": 'VALUE = "imported"\n',
    });
    await mustPulumi(dir, ["stack", "init", "dev"]);
    // The virtual environment's commands first, as `source venv/bin/activate` would have them.
    const activated = { ...host.env, PATH: [join(venv, "bin"), host.env.PATH ?? ""].join(delimiter) };
    const up = await host.pulumi(dir, ["up", "--yes"], undefined, activated);
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0);
    expect(await host.outputs(dir)).toEqual({ helper: "imported" });
  });

  it("fails the update when the program raises, showing its message once, with its own traceback", async () => {
    const dir = await host.project("hostpythrow", inVirtualenv("../venv"), { "__main__.py": PROGRAM });
    await host.stack(dir, { failure: "throw" });
    const output = await host.failedUp(dir);
    expect(occurrences(output, "the program failed on purpose")).toBe(1);
    expect(output).toContain(`File "${join(dir, "__main__.py")}", line`);
    expect(output).not.toMatch(/python-runner\.py|non-zero exit code/);
  });

  it("fails the update when the program exits non-zero without a message, and says so", async () => {
    const dir = await host.project("hostpyexit", inVirtualenv("../venv"), { "__main__.py": PROGRAM });
    await host.stack(dir, { failure: "exit" });
    expect(await host.failedUp(dir)).toContain(EXIT_3);
  });

  it("names the virtualenv option when the folder it names is no virtual environment", async () => {
    const dir = await host.project("hostpynovenv", inVirtualenv("missing-venv"), { "__main__.py": PROGRAM });
    await host.stack(dir);
    expect(await host.failedUp(dir)).toContain(
      `runtime.options.virtualenv: ${join(dir, "missing-venv")} is not a virtual environment`,
    );
  });
});
