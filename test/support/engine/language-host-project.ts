/**
 * What the language host tests share: a scratch folder with a file backend, project folders written
 * in it, the Pulumi CLI run in them, and the checks every host must pass (the secret kept out of the
 * state, a failing program's message shown once, a silent non-zero exit named).
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, beforeAll, expect } from "vitest";

import { runCommand, scratchFolder, type CommandResult } from "../../../scripts/support/user-project";
import { fileBackendEnvironment } from "./stacks";

/** The scratch folder and the CLI in it, set up before the file's tests and removed after. */
export interface LanguageHostProjects {
  /** The scratch folder (set once the file's `beforeAll` ran). */
  readonly root: string;
  /** The environment the CLI runs with. */
  readonly env: NodeJS.ProcessEnv;
  /** Writes a project folder: Pulumi.yaml (`name:` then `rest`) and the files given. */
  readonly project: (name: string, rest: string, files: Record<string, string>) => Promise<string>;
  /** Runs the CLI in `dir`, with `input` on stdin. */
  readonly pulumi: (
    dir: string,
    args: string[],
    input?: string,
    env?: NodeJS.ProcessEnv,
  ) => Promise<CommandResult>;
  /** Runs the CLI in `dir` and throws, with its output, unless it succeeds. */
  readonly mustPulumi: (dir: string, args: string[], input?: string) => Promise<CommandResult>;
  /** A new stack of the project with the greeting and the secret token set, then `config`. */
  readonly stack: (dir: string, config?: Record<string, string>) => Promise<void>;
  /** The stack's outputs, secrets shown. */
  readonly outputs: (dir: string) => Promise<Record<string, unknown>>;
  /**
   * A preview then an up (`--parallel 3`) of a program whose only resource is the stack and which
   * exports `dryRun` and `token`: the preview sees a dry run, the up prints the token as secret,
   * neither prints its value. The outputs after, secrets shown.
   */
  readonly previewAndUp: (dir: string) => Promise<Record<string, unknown>>;
  /** `pulumi up`, which must fail: its stdout and stderr. */
  readonly failedUp: (dir: string) => Promise<string>;
  /** The token output shown as secret, and absent from the stack's state file. */
  readonly expectTokenKept: (dir: string, project: string) => Promise<void>;
  /** The token absent from the state file of the project's `dev` stack. */
  readonly expectTokenOutOfState: (project: string) => Promise<void>;
}

/**
 * Registers the set-up and clean-up of a scratch folder named after `scratch` in the current
 * `describe`; `token` is the secret the stacks get, `extra` more environment for the CLI.
 */
export function languageHostProjects(
  scratch: string,
  token: string,
  extra: (root: string) => NodeJS.ProcessEnv = () => ({}),
): LanguageHostProjects {
  let root = "";
  let env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    root = await scratchFolder(scratch);
    env = await fileBackendEnvironment(root, "test-only", extra(root));
  });

  afterAll(async () => {
    if (root !== "") await rm(root, { recursive: true, force: true });
  });

  const projects: LanguageHostProjects = {
    get root() {
      return root;
    },
    get env() {
      return env;
    },
    async project(name, rest, files) {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "Pulumi.yaml"), `name: ${name}\n${rest}`);
      for (const [file, text] of Object.entries(files)) {
        await mkdir(join(dir, file, ".."), { recursive: true });
        await writeFile(join(dir, file), text);
      }
      return dir;
    },
    pulumi(dir, args, input, runEnv = env) {
      return runCommand("pulumi", args, { cwd: dir, env: runEnv, ...(input === undefined ? {} : { input }) });
    },
    async mustPulumi(dir, args, input) {
      const result = await projects.pulumi(dir, args, input);
      if (result.code !== 0)
        throw new Error(
          `pulumi ${args.join(" ")} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`,
        );
      return result;
    },
    async stack(dir, config = {}) {
      await projects.mustPulumi(dir, ["stack", "init", "dev"]);
      // One command for the config: each start of the CLI, with the key it derives from the
      // passphrase, takes about half a second of CPU.
      const plain = Object.entries({ greeting: "hello", ...config }).map(([key, value]) => `${key}=${value}`);
      await projects.mustPulumi(dir, [
        "config",
        "set-all",
        ...plain.flatMap((pair) => ["--plaintext", pair]),
        "--secret",
        `token=${token}`,
      ]);
    },
    async outputs(dir) {
      const shown = await projects.mustPulumi(dir, ["stack", "output", "--json", "--show-secrets"]);
      return JSON.parse(shown.stdout) as Record<string, unknown>;
    },
    async previewAndUp(dir) {
      const preview = await projects.mustPulumi(dir, ["preview"]);
      expect(preview.stdout).toMatch(/\+ 1 to create/);
      expect(preview.stdout).toMatch(/dryRun\s*: true/);
      const up = await projects.mustPulumi(dir, ["up", "--yes", "--parallel", "3"]);
      expect(up.stdout).toMatch(/1 created/);
      expect(up.stdout).toMatch(/token\s*: \[secret\]/);
      expect(`${preview.stdout}${preview.stderr}${up.stdout}${up.stderr}`).not.toContain(token);
      return projects.outputs(dir);
    },
    async failedUp(dir) {
      const up = await projects.pulumi(dir, ["up", "--yes"]);
      expect(up.code).not.toBe(0);
      return `${up.stdout}\n${up.stderr}`;
    },
    async expectTokenKept(dir, project) {
      expect((await projects.mustPulumi(dir, ["stack", "output", "token"])).stdout.trim()).toBe("[secret]");
      await projects.expectTokenOutOfState(project);
    },
    async expectTokenOutOfState(project) {
      const state = await readFile(join(root, "state", ".pulumi", "stacks", project, "dev.json"), "utf8");
      expect(state).not.toContain(token);
    },
  };
  return projects;
}

/** How many times `text` appears in `output`: a program's failure must be shown once. */
export function occurrences(output: string, text: string): number {
  return output.split(text).length - 1;
}

/** The message the CLI gives when a program exits with code 3 and says nothing. */
export const EXIT_3 = "Program exited with non-zero exit code: 3";
