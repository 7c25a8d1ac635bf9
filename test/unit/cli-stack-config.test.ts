/** Errors of `export --stack`: the CLI's reason on one line, never a secret value. */
import { describe, expect, it } from "vitest";

import { errorText, redact } from "../../cli/stack-config";

describe("errorText", () => {
  it("keeps the CLI's reason and drops the line quoting the command, whose arguments hold secrets", () => {
    // The shape of the Automation API's CommandError when the CLI exits non-zero (execa's message as stderr).
    const error = Object.assign(new Error("code: -2\n stdout: \n stderr: ..."), {
      commandResult: {
        stderr:
          "Command failed with exit code 255: pulumi config set-all --stack dev --secret p:hook.webhook=https://h.example/SECRET-A\n" +
          "error: invalid configuration key 'p:hook.webhook': SECRET-A is not allowed here\n",
      },
    });
    expect(errorText(error, ["https://h.example/SECRET-A", "SECRET-A"])).toBe(
      "invalid configuration key 'p:hook.webhook': [secret] is not allowed here",
    );
  });

  it("falls back to the message of any other error", () => {
    expect(errorText(new Error("spawn pulumi ENOENT"), [])).toBe("spawn pulumi ENOENT");
  });
});

describe("redact", () => {
  it("blanks the longest secrets first, so a secret inside another leaves no part behind", () => {
    expect(redact("key=abc123 url=https://x/abc123/tail", ["abc123", "https://x/abc123/tail"])).toBe(
      "key=[secret] url=[secret]",
    );
  });
});
