/**
 * `export --stack`: no stack made when no backend is logged in, a stack it made removed again when its
 * config cannot be set (or the command that removes it), and errors as the CLI's reason on one line,
 * never a secret value. The workspace is a stand-in that records the calls.
 */
import { describe, expect, it } from "vitest";

import { type StackWorkspace, configureStack, errorText, redact } from "../../cli/stack-config";

/** The Automation API's error when the CLI exits non-zero: the command line, then the CLI's stderr. */
const cliError = (command: string, stderr: string): Error =>
  Object.assign(new Error(`code: 255\n stdout: \n stderr: ${stderr}`), {
    commandResult: { stderr: `Command failed with exit code 255: ${command}\nerror: ${stderr}\n` },
  });

/**
 * A workspace holding `stacks`, whose calls are recorded; the `failing` ones reject with their error,
 * a failing createStack after making the stack when `madeBeforeFailing`.
 */
function workspace(
  stacks: string[],
  failing: Partial<Record<keyof StackWorkspace, Error>> = {},
  madeBeforeFailing = false,
): { calls: string[]; open: () => Promise<StackWorkspace> } {
  const calls: string[] = [];
  const call =
    <T>(name: keyof StackWorkspace, answer: (stack: string) => T) =>
    (stack?: string): Promise<T> => {
      calls.push(stack === undefined ? name : `${name} ${stack}`);
      const error = failing[name];
      if (name === "createStack" && (error === undefined || madeBeforeFailing)) stacks.push(stack!);
      return error === undefined ? Promise.resolve(answer(stack!)) : Promise.reject(error);
    };
  const fake = {
    whoAmI: call("whoAmI", () => ({ user: "me" })),
    listStacks: call("listStacks", () => stacks.map((name) => ({ name, current: false }))),
    createStack: call("createStack", () => undefined),
    selectStack: call("selectStack", () => undefined),
    setAllConfig: call("setAllConfig", () => undefined),
    removeStack: call("removeStack", () => undefined),
  } as unknown as StackWorkspace;
  return { calls, open: () => Promise.resolve(fake) };
}

const REQUEST = {
  workDir: "/work/handlers",
  project: "handlers",
  stack: "dev",
  force: false,
  config: {
    "notification-handlers:baseUrl": { value: "https://status.example.com", secret: false },
    "notification-handlers:apiKey": { value: "nhk_SECRET-KEY", secret: true },
  },
};

describe("configureStack", () => {
  it("makes no stack when no backend is logged in, and says to log in", async () => {
    const { calls, open } = workspace([], {
      whoAmI: cliError(
        "pulumi whoami --json",
        "PULUMI_ACCESS_TOKEN must be set for login during non-interactive CLI sessions",
      ),
    });
    await expect(configureStack(REQUEST, open)).rejects.toThrow(
      "--stack needs a Pulumi backend to make the stack in, and `pulumi whoami` names none (PULUMI_ACCESS_TOKEN must be set for login during non-interactive CLI sessions): log in with `pulumi login`",
    );
    expect(calls).toEqual(["whoAmI"]);
  });

  it("removes the stack it made when its config cannot be set, with no secret in the message", async () => {
    const { calls, open } = workspace([], {
      setAllConfig: cliError(
        "pulumi config set-all --stack dev --secret notification-handlers:apiKey=nhk_SECRET-KEY",
        "could not save nhk_SECRET-KEY",
      ),
    });
    const failure = configureStack(REQUEST, open);
    await expect(failure).rejects.toThrow(
      "setting the config of the stack dev failed: could not save [secret] (the stack was removed again)",
    );
    expect(calls).toEqual(["whoAmI", "listStacks", "createStack dev", "setAllConfig dev", "removeStack dev"]);
  });

  it("names the command that removes a stack it could not remove", async () => {
    const { open } = workspace([], {
      setAllConfig: new Error("disk full"),
      removeStack: new Error("backend unreachable"),
    });
    await expect(configureStack(REQUEST, open)).rejects.toThrow(
      "setting the config of the stack dev failed: disk full; removing the stack again failed too (backend unreachable): remove it with `pulumi stack rm ORG/handlers/dev`",
    );
  });

  it("removes a stack the CLI made before failing, and only such a stack", async () => {
    const failed = new Error("writing Pulumi.dev.yaml failed");
    const made = workspace([], { createStack: failed }, true);
    await expect(configureStack(REQUEST, made.open)).rejects.toThrow(
      "making the stack dev failed: writing Pulumi.dev.yaml failed (the stack was removed again)",
    );
    expect(made.calls).toContain("removeStack dev");
    const notMade = workspace([], { createStack: failed });
    await expect(configureStack(REQUEST, notMade.open)).rejects.toThrow(
      /^making the stack dev failed: writing Pulumi.dev.yaml failed$/,
    );
    expect(notMade.calls).not.toContain("removeStack dev");
  });

  it("keeps a stack that was there, with --force, when its config cannot be set", async () => {
    const { calls, open } = workspace(["dev"], { setAllConfig: new Error("disk full") });
    await expect(configureStack({ ...REQUEST, force: true }, open)).rejects.toThrow(
      /^setting the config of the stack dev failed: disk full$/,
    );
    expect(calls).not.toContain("removeStack dev");
  });
});

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
