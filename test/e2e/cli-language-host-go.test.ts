/**
 * The Go language host through the Pulumi CLI in project folders: the project's own where no Pulumi
 * is installed, else the installed one (the test holds for both). The programs register no resource
 * but the stack, whose outputs show what reached them. They build with the machine's Go caches (see
 * `userEnvironment`), as a user's would: the SDK compiles once, and later runs link only.
 */
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { mustRun } from "../../scripts/support/user-project";
import { EXIT_3, languageHostProjects, occurrences } from "../support/engine/language-host-project";

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
  const host = languageHostProjects("go-host", TOKEN, (root) => ({
    // The programs' binaries go under the user's cache: the scratch home's, removed after.
    XDG_CACHE_HOME: join(root, "home", ".cache"),
  }));

  /** Writes a project folder with Pulumi.yaml, go.mod and the program, then `go mod tidy` in it. */
  async function project(name: string, program: string): Promise<string> {
    const dir = await host.project(name, "runtime: go\n", {
      "go.mod": `module ${name}\n\ngo 1.25\n\nrequire ${GO_SDK}\n`,
      "main.go": program,
    });
    await mustRun("go", ["mod", "tidy"], { cwd: dir, env: host.env });
    return dir;
  }

  it("builds and runs the program: preview, up with config and secrets", async () => {
    const dir = await project("hostgo", PROGRAM);
    await host.stack(dir);

    expect(await host.previewAndUp(dir)).toEqual({
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
    await host.expectTokenKept(dir, "hostgo");
  });

  it("fails the update when the program returns an error, showing its message once", async () => {
    const dir = await project("hostgoerror", PROGRAM);
    await host.stack(dir, { failure: "error" });
    const output = await host.failedUp(dir);
    expect(occurrences(output, "the program failed on purpose")).toBe(1);
    expect(output).not.toMatch(/non-zero exit code/);
  });

  it("fails the update when the program exits non-zero without a message, and says so", async () => {
    const dir = await project("hostgoexit", PROGRAM);
    await host.stack(dir, { failure: "exit" });
    expect(await host.failedUp(dir)).toContain(EXIT_3);
  });

  it("fails the update when the program does not compile, showing the compiler's message once", async () => {
    // `go mod tidy` looks at imports only: it takes a program that does not compile.
    const dir = await project("hostgobroken", PROGRAM.replace("return nil", "return notDeclaredAnywhere"));
    await host.stack(dir);
    const output = await host.failedUp(dir);
    expect(occurrences(output, "undefined: notDeclaredAnywhere")).toBe(1);
    expect(output).toContain("./main.go:");
  });
});
