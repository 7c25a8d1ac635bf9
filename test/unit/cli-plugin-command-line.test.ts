/** The plugin's executable tells the engine's start from a command by its first argument. */
import { describe, expect, it } from "vitest";

import { isCommandLine } from "../../cli/plugin-command-line";

describe("isCommandLine", () => {
  it("leaves the engine's starts to the plugin: flags first, its address last", () => {
    for (const args of [
      ["127.0.0.1:4321"],
      ["localhost:4321"],
      ["[::1]:4321"],
      ["--logtostderr", "-v=9", "127.0.0.1:4321"],
      ["--tracing", "http://127.0.0.1:9411/api/v1/spans", "127.0.0.1:4321"],
      ["--logflow", "127.0.0.1:4321"],
    ])
      expect(isCommandLine(args), args.join(" ")).toBe(false);
  });

  it("takes the commands, help, no argument and any other word as a command line", () => {
    for (const args of [
      ["recover"],
      ["recover", "--dry-run", "--stack", "dev"],
      ["version"],
      ["--version"],
      ["help"],
      ["--help"],
      ["-h"],
      [],
      ["export"],
    ])
      expect(isCommandLine(args), args.join(" ")).toBe(true);
  });
});
