/**
 * The built plugin run with a command instead of the engine's address: `recover` and `summary` are
 * the same commands as `notification-handlers recover` and `summary`, named after the executable;
 * `version` and `--help` answer.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { PLUGIN_ENTRY, runCli } from "../support/cli-process";

const EXECUTABLE = "pulumi-resource-notification-handlers";
const plugin = (args: string[], env: Record<string, string> = {}, cwd?: string) =>
  runCli(args, env, { bin: PLUGIN_ENTRY, ...(cwd === undefined ? {} : { cwd }) });

describe("the plugin's executable as a command", () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it("prints its version and its usage", async () => {
    const { version } = JSON.parse(await readFile(join(__dirname, "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(await plugin(["version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    const help = await plugin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`${EXECUTABLE} recover --state EXPORT.json --since DATETIME`);
    expect(help.stdout).toContain(`pulumi preview --json | ${EXECUTABLE} summary [--title TEXT]`);
    const bare = await plugin([]);
    expect(bare.code).toBe(2); // a person ran it with nothing: the engine always passes its address
    expect(bare.stdout).toBe(help.stdout);
  });

  it("refuses another word, and recover's bad flags as the Node.js command does", async () => {
    expect(await plugin(["export"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `${EXECUTABLE}: unknown command "export": use recover, summary or version (Pulumi starts the plugin with its address) (see --help)\n`,
    });
    expect(await plugin(["recover", "--output", "fixed.json"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `${EXECUTABLE}: --output goes with --state; without it the stack's state is written (see --help)\n`,
    });
  });

  it("runs summary on a preview's JSON, as the Node.js command does", async () => {
    const preview = join(__dirname, "..", "unit", "fixtures", "preview-drift-plugin.json");
    const summary = await plugin(["summary", preview, "--title", "Drift check"]);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toMatch(/^### Drift check\n/);
    expect(summary.stdout).toContain("`slack`: [secret] → [secret] (changed outside the code)");
  });

  it("runs recover: a state from a file, and the stack's through the Pulumi CLI on PATH", async () => {
    const folder = await mkdtemp(join(tmpdir(), "plugin-command-line-"));
    folders.push(folder);
    await writeFile(
      join(folder, "export.json"),
      JSON.stringify({ version: 3, deployment: { resources: [] } }),
    );
    const fromFile = await plugin(
      ["recover", "--state", "export.json", "--since", "2026-05-01T12:00:00Z"],
      {},
      folder,
    );
    expect(fromFile).toEqual({ code: 0, stdout: "no pending operations: nothing to recover\n", stderr: "" });
    expect(await plugin(["recover"], { PATH: folder }, folder)).toEqual({
      code: 1,
      stdout: "",
      stderr: `${EXECUTABLE}: could not run pulumi: the Pulumi CLI is not on PATH\n`,
    });
  });
});
