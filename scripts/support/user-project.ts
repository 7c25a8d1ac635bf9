/**
 * A user's project, made the way a user makes one: the package packed as npm would publish it
 * (`npm pack`), one of the examples copied to a folder outside the repository with its dependency on
 * the package pointed at that tarball, `npm install`, then the Pulumi CLI run as commands in the folder.
 *
 * The demo and the tests on the user's path (test/e2e/cli-*.test.ts) share it.
 */
import { execFileSync, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, delimiter, dirname, join, relative, resolve, sep } from "node:path";

/** The repository's root: the nearest folder above this file with the package's package.json. */
export const REPOSITORY_ROOT = ((): string => {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "examples"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no repository root above ${__dirname}`);
  }
})();

/** What a finished command printed. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCommand}. */
interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text written to the command's standard input. */
  input?: string;
  /** Called with each chunk of output as it arrives. */
  onOutput?: (text: string) => void;
  /** Stop the command after this long (milliseconds); default 10 minutes. */
  timeoutMs?: number;
  /** Stops the command, and every process it started, when aborted. */
  signal?: AbortSignal;
}

/** Runs a command to its end; never rejects for a non-zero exit (the caller looks at `code`). */
export function runCommand(command: string, args: string[], options: RunOptions): Promise<CommandResult> {
  return new Promise((resolveRun, reject) => {
    const { signal } = options;
    // A group of its own, when it can be stopped, so that stopping it reaches what it started.
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: signal !== undefined,
    });
    const stop = (): void => {
      if (child.pid === undefined || child.exitCode !== null) return;
      try {
        if (signal === undefined) child.kill("SIGKILL");
        else process.kill(-child.pid, "SIGKILL");
      } catch {
        // It ended meanwhile.
      }
    };
    signal?.addEventListener("abort", stop, { once: true });
    if (child.stdout === null || child.stderr === null) throw new Error("spawn gave no output pipes");
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      options.onOutput?.(text);
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
      options.onOutput?.(text);
    });
    const timer = setTimeout(stop, options.timeoutMs ?? 600_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, killedBy) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      resolveRun({ code: code ?? (killedBy === null ? 1 : 128), stdout, stderr });
    });
    if (options.input !== undefined) {
      child.stdin?.on("error", () => undefined); // a command that does not read its input
      child.stdin?.end(options.input);
    }
  });
}

/** Like {@link runCommand}, but a non-zero exit is an error that carries the end of the output. */
export async function mustRun(command: string, args: string[], options: RunOptions): Promise<CommandResult> {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    const tail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-40).join("\n");
    throw new Error(`\`${[command, ...args].join(" ")}\` exited with ${result.code}:\n${tail}`);
  }
  return result;
}

/** The repository's packages, by name, and their folders relative to the repository. */
export const PACKAGES = {
  "pulumi-notification-handlers": ".",
  "notification-handlers-server": "server",
} as const;

/** A dependency spec for each of the repository's packages, e.g. `file:/tmp/x.tgz`. */
export type PackageSpecs = Record<keyof typeof PACKAGES, string>;

/**
 * Packs each of the repository's packages as `npm publish` would and returns `file:` specs of the
 * tarballs. They must be built (`npm run build`): packing runs no scripts, so it takes `dist` as it is.
 */
export async function packPackages(destination: string, root = REPOSITORY_ROOT): Promise<PackageSpecs> {
  await mkdir(destination, { recursive: true });
  const specs: Partial<PackageSpecs> = {};
  for (const [name, folder] of Object.entries(PACKAGES) as [keyof typeof PACKAGES, string][]) {
    const dir = join(root, folder);
    const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { main: string };
    if (!existsSync(join(dir, manifest.main)))
      throw new Error(`${join(dir, manifest.main)} is missing: run \`npm run build\` before packing`);
    const { stdout } = await mustRun(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", destination],
      { cwd: dir, env: process.env },
    );
    const [packed] = JSON.parse(stdout) as [{ filename: string }];
    specs[name] = `file:${join(destination, basename(packed.filename))}`;
  }
  return specs as PackageSpecs;
}

/** Files of an example that a copy leaves behind: what installing or running it made. */
function isInstallProduct(path: string): boolean {
  const name = basename(path);
  return (
    name === "node_modules" ||
    name === "venv" ||
    name === "__pycache__" ||
    name === ".data" ||
    /^Pulumi\..+\.yaml$/.test(name)
  );
}

/** Options of {@link copyExample}. */
interface CopyExampleOptions {
  /** The project's folder, relative to the repository: `examples/quickstart`. */
  source: string;
  /** The folder to copy it to; made when missing. */
  destination: string;
  /**
   * What the copy's package.json takes the repository's packages from, where it depends on them;
   * without it, what the project names (a release's version, from the registry).
   */
  packages?: PackageSpecs;
  /**
   * A folder, relative to the repository, whose `package.json` and `package-lock.json` replace the
   * project's own: the same program on other pinned dependencies.
   */
  pins?: string;
}

/** Copies a project as a user would start from it, its dependencies on this repository pointed at `packages` if given. */
export async function copyExample(options: CopyExampleOptions, root = REPOSITORY_ROOT): Promise<string> {
  const source = join(root, options.source);
  if (!existsSync(join(source, "Pulumi.yaml")))
    throw new Error(`${options.source} is not a Pulumi project (no Pulumi.yaml)`);
  await cp(source, options.destination, {
    recursive: true,
    filter: (path) => !isInstallProduct(path),
  });
  if (options.pins !== undefined) {
    for (const file of ["package.json", "package-lock.json"])
      await cp(join(root, options.pins, file), join(options.destination, file));
  }
  const manifestPath = join(options.destination, "package.json");
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  for (const deps of [manifest.dependencies ?? {}, manifest.devDependencies ?? {}]) {
    for (const [name, spec] of Object.entries(options.packages ?? {})) if (name in deps) deps[name] = spec;
  }
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await pinGoReplacements(source, options.destination);
  return options.destination;
}

/**
 * A `replace` in the copy's go.mod by a relative path (the generated SDK, `../../sdk/go`) becomes that
 * path's absolute one from the example's folder: the copy is outside the checkout.
 */
async function pinGoReplacements(source: string, destination: string): Promise<void> {
  const goMod = join(destination, "go.mod");
  if (!existsSync(goMod)) return;
  const text = await readFile(goMod, "utf8");
  await writeFile(
    goMod,
    text.replace(/=>\s*(\.\.?\/\S*)/g, (_, path: string) => `=> ${resolve(source, path)}`),
  );
}

/**
 * The user's projects the tests make, each installing exactly what its committed `package-lock.json`
 * pins (the repository's packages, packed, are the one thing substituted at test time), and the Python
 * projects, whose `constraints.txt` pins what `requirements.txt` brings in. `npm run pins:update` writes
 * them again (docs/development.md#pins).
 */
export const PINNED_NPM_PROJECTS = [
  "examples/adopt-existing",
  "examples/all-types",
  "examples/gitops",
  "examples/go",
  "examples/multi-account",
  "examples/python",
  "examples/quickstart",
  "examples/yaml-handlers",
  "examples/yaml-program",
  "templates/typescript",
  "test/fixtures/install-layouts",
  "test/fixtures/oldest-sdk",
  "test/fixtures/upgrade/program",
] as const;
export const PINNED_PYTHON_PROJECTS = ["examples/python", "templates/python"] as const;

/** The `name==version` lines of a pip requirements or constraints file, or of `pip freeze`, by name as PyPI spells it. */
export function pipPins(text: string): Map<string, string> {
  return new Map(
    text
      .split("\n")
      .map((line) => /^([A-Za-z0-9._-]+)==(\S+)/.exec(line.trim()))
      .flatMap((m) => (m === null ? [] : [[m[1]!.toLowerCase().replace(/[-_.]+/g, "-"), m[2]!] as const])),
  );
}

/** Options of {@link userEnvironment}. */
interface UserEnvironmentOptions {
  /** The user's home folder: the Pulumi home and the local backend go there. */
  home: string;
  /** Folders to put first on PATH (the engine's, see `enginePath`). */
  pathFirst: string[];
  /** Variables to add. */
  extra?: Record<string, string>;
}

/** The machine's global npm configuration file, as the npm that runs this process has it. */
function globalNpmConfig(): string {
  const fromNpm = process.env.npm_config_globalconfig;
  if (fromNpm !== undefined && fromNpm !== "") return fromNpm;
  return execFileSync("npm", ["config", "get", "globalconfig"], { encoding: "utf8" }).trim();
}

let knownCaches: Record<string, string> | undefined;

/**
 * The machine's Go build and module caches and pip's cache, where a user's Go and pip find them under
 * the user's home (the sessions' home is a scratch one): compiling the Pulumi SDK for Go, or fetching
 * a wheel, is done once per machine, as for a user. Go's only where Go is installed.
 */
function machineCaches(): Record<string, string> {
  if (knownCaches !== undefined) return knownCaches;
  const pip =
    process.env.PIP_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pip");
  knownCaches = { PIP_CACHE_DIR: pip };
  try {
    const [build = "", modules = ""] = execFileSync("go", ["env", "GOCACHE", "GOMODCACHE"], {
      encoding: "utf8",
    }).split("\n");
    knownCaches = { ...knownCaches, GOCACHE: build, GOMODCACHE: modules };
  } catch {
    // No Go on the machine: a Go program says so when it runs.
  }
  return knownCaches;
}

/** Variables of the test runner, npm scripts, Pulumi and the provider, which a user's shell lacks. */
const NOT_THE_USERS =
  /^(npm_|PULUMI_|NOTIFICATION_HANDLERS_|VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$|INIT_CWD$|PWD$|OLDPWD$)/i;

/**
 * The environment of a user's shell: the machine's (its proxy and certificate settings included, and
 * its package and build caches), without the variables of the test runner, npm scripts, Pulumi and the provider, and without any
 * folder of this repository on PATH, so that what runs is the copy's own node_modules.
 */
export function userEnvironment(options: UserEnvironmentOptions): NodeJS.ProcessEnv {
  const inRepository = (dir: string): boolean => {
    const rel = relative(REPOSITORY_ROOT, resolve(dir));
    return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep));
  };
  const systemPath = (process.env.PATH ?? "").split(delimiter).filter((d) => d !== "" && !inRepository(d));
  const machine = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !NOT_THE_USERS.test(name)),
  );
  return {
    ...machine,
    PATH: [...options.pathFirst, ...systemPath].join(delimiter),
    HOME: options.home,
    TERM: "dumb",
    NO_COLOR: "1",
    // The machine's npm settings (registry, certificates) and package cache, as the user has them;
    // npm would look for them under the new HOME and the pinned Node.js's prefix otherwise.
    npm_config_userconfig: join(homedir(), ".npmrc"),
    npm_config_globalconfig: globalNpmConfig(),
    npm_config_cache: join(homedir(), ".npm"),
    npm_config_update_notifier: "false",
    ...machineCaches(),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // The machine may be offline: the engine must not try to download plugins.
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    ...options.extra,
  };
}

/** Applies `changes` to `env`: a variable given as `undefined` is removed. */
export function applyEnvironment(env: NodeJS.ProcessEnv, changes: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
}

/** A scratch folder outside the repository, for a user's home and projects. */
export function scratchFolder(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `notification-handlers-${prefix}-`));
}
