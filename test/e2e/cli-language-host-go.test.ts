/**
 * The Go language host through the Pulumi CLI in project folders: the project's own where no Pulumi
 * is installed, else the installed one (the test holds for both). The programs register no resource
 * but the stack, whose outputs show what reached them. They build with the machine's Go caches (see
 * `userEnvironment`), as a user's would: the SDK compiles once, and later runs link only.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import {
  mustRun,
  runCommand,
  scratchFolder,
  userEnvironment,
  type CommandResult,
} from "../../scripts/user-project";

/** The Go SDK, at the version of the CLI the engine helper builds. */
const GO_SDK = "github.com/pulumi/pulumi/sdk/v3 v3.259.0";

const TOKEN = "token-value-for-the-go-host-test";

/** A program that exports what reached it, or fails the way the config says. */
const PROGRAM = `package main

import (
	"errors"
	"os"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		switch cfg.Get("failure") {
		case "error":
			// Built at run time, so that no source line shown repeats the message.
			return errors.New(strings.Join([]string{"the program failed", "on purpose"}, " "))
		case "exit":
			os.Exit(3)
		}
		cwd, _ := os.Getwd()
		ctx.Export("greeting", pulumi.String(cfg.Require("greeting")))
		ctx.Export("token", cfg.RequireSecret("token"))
		ctx.Export("project", pulumi.String(ctx.Project()))
		ctx.Export("stack", pulumi.String(ctx.Stack()))
		ctx.Export("organization", pulumi.String(ctx.Organization()))
		ctx.Export("rootDirectory", pulumi.String(ctx.RootDirectory()))
		ctx.Export("cwd", pulumi.String(cwd))
		ctx.Export("dryRun", pulumi.Bool(ctx.DryRun()))
		ctx.Export("parallel", pulumi.Int(ctx.Parallel()))
		return nil
	})
}
`;

describe("the Go language host, through the Pulumi CLI in a project folder", () => {
  let root = "";
  let env: NodeJS.ProcessEnv = {};

  /** Writes a project folder with Pulumi.yaml, go.mod and the program, then `go mod tidy` in it. */
  async function project(name: string, program: string): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: go\n`);
    await writeFile(join(dir, "go.mod"), `module ${name}\n\ngo 1.25\n\nrequire ${GO_SDK}\n`);
    await writeFile(join(dir, "main.go"), program);
    await mustRun("go", ["mod", "tidy"], { cwd: dir, env });
    return dir;
  }

  function pulumi(dir: string, args: string[], input?: string): Promise<CommandResult> {
    return runCommand("pulumi", args, { cwd: dir, env, ...(input === undefined ? {} : { input }) });
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

  beforeAll(async () => {
    root = await scratchFolder("go-host");
    await mkdir(join(root, "state"));
    env = userEnvironment({
      home: join(root, "home"),
      pathFirst: inject("enginePath"),
      extra: {
        PULUMI_HOME: join(root, "home", ".pulumi"),
        PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "test-only",
        // The programs' binaries go under the user's cache: the scratch home's, removed after.
        XDG_CACHE_HOME: join(root, "home", ".cache"),
      },
    });
  });

  afterAll(async () => {
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  it("builds and runs the program: preview, up with config and secrets", async () => {
    const dir = await project("hostgo", PROGRAM);
    await stack(dir);

    const preview = await mustPulumi(dir, ["preview"]);
    expect(preview.stdout).toMatch(/\+ 1 to create/);
    expect(preview.stdout).toMatch(/dryRun\s*: true/);

    const up = await mustPulumi(dir, ["up", "--yes", "--parallel", "3"]);
    expect(up.stdout).toMatch(/1 created/);
    expect(up.stdout).toMatch(/token\s*: \[secret\]/);
    expect(`${preview.stdout}${preview.stderr}${up.stdout}${up.stderr}`).not.toContain(TOKEN);
    const outputs = JSON.parse(
      (await mustPulumi(dir, ["stack", "output", "--json", "--show-secrets"])).stdout,
    ) as Record<string, unknown>;
    expect(outputs).toEqual({
      greeting: "hello",
      token: TOKEN,
      project: "hostgo",
      stack: "dev",
      organization: "organization",
      rootDirectory: dir,
      cwd: dir,
      dryRun: false,
      parallel: 3,
    });
    expect((await mustPulumi(dir, ["stack", "output", "token"])).stdout.trim()).toBe("[secret]");
    const state = await readFile(join(root, "state", ".pulumi", "stacks", "hostgo", "dev.json"), "utf8");
    expect(state).not.toContain(TOKEN);
  });

  it("fails the update when the program returns an error, showing its message once", async () => {
    const dir = await project("hostgoerror", PROGRAM);
    await stack(dir, { failure: "error" });
    const up = await pulumi(dir, ["up", "--yes"]);
    expect(up.code).not.toBe(0);
    const output = `${up.stdout}\n${up.stderr}`;
    expect(output.split("the program failed on purpose").length - 1).toBe(1);
    expect(output).not.toMatch(/non-zero exit code/);
  });

  it("fails the update when the program exits non-zero without a message, and says so", async () => {
    const dir = await project("hostgoexit", PROGRAM);
    await stack(dir, { failure: "exit" });
    const up = await pulumi(dir, ["up", "--yes"]);
    expect(up.code).not.toBe(0);
    expect(`${up.stdout}\n${up.stderr}`).toContain("Program exited with non-zero exit code: 3");
  });

  it("fails the update when the program does not compile, showing the compiler's message once", async () => {
    // `go mod tidy` looks at imports only: it takes a program that does not compile.
    const dir = await project("hostgobroken", PROGRAM.replace("return nil", "return notDeclaredAnywhere"));
    await stack(dir);
    const up = await pulumi(dir, ["up", "--yes"]);
    expect(up.code).not.toBe(0);
    const output = `${up.stdout}\n${up.stderr}`;
    expect(output.split("undefined: notDeclaredAnywhere").length - 1).toBe(1);
    expect(output).toContain("./main.go:");
  });
});
