/**
 * The user's path, as the tests on it take it: an example copied out of the repository, the release's
 * packages installed from the run's stand-in of the npm registry, its README's "Run it" steps run as
 * written in one shell session, and the Pulumi CLI run as commands.
 *
 * The README's commands run verbatim with two exceptions, for running tests side by side: a
 * server's `--port 8080` (or `--port 8081`, for a README that starts a second server) becomes
 * `--port 0` (the server prints the port it got), and the address `http://127.0.0.1:8080` (or
 * `:8081`) in later steps becomes that server's real address. One thing differs from the
 * user's shell: `pulumi login --local` logs in to `~/.pulumi` of the account in /etc/passwd, whatever
 * HOME says, so the session sets `PULUMI_BACKEND_URL` (which wins over the login) to a folder of its
 * own, and `PULUMI_HOME` with it: the stacks of the tests never mix with the machine's. The copy
 * starts with the node_modules of an earlier real install of the same dependencies in the same run
 * (`seedDependencies`), and a Python project with its virtual environment (`seedVirtualenv`), as on a
 * machine that installed them before; the README's `npm install` and `pip install` run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";

import { expect, inject, onTestFinished } from "vitest";
import { parse as parseYaml } from "yaml";

import { NotificationHandlersClient } from "../../../sdk/client/client";
import type { NotificationHandlerRecord } from "../../../sdk/client/domain/resources/handler-parsing";
import { PYTHON_PACKAGE } from "../../../scripts/release/release";
import { claimFolder } from "../../../scripts/support/dir-lock";
import { projectCache } from "../../../scripts/support/project-cache";
import {
  applyEnvironment,
  copyExample,
  mustRun,
  PACKAGES,
  pipPins,
  REPOSITORY_ROOT,
  runCommand,
  scratchFolder,
  userEnvironment,
  type CommandResult,
} from "../../../scripts/support/user-project";
import { addRegistryUrls } from "../stand-ins/npm-registry";
import type { Registries } from "../stand-ins/registries";

/** The ports READMEs start servers on: the first server's, and a second one's. */
const README_PORTS = ["8080", "8081"] as const;
const readmeUrl = (port: string): string => `http://127.0.0.1:${port}`;

/** Every handler of the client's account, oldest first. */
export async function listAll(client: NotificationHandlersClient): Promise<NotificationHandlerRecord[]> {
  const all: NotificationHandlerRecord[] = [];
  for await (const h of client.notificationHandlers.list()) all.push(h);
  return all.sort((a, b) => a.id - b.id);
}

/** The version of a package the project installed, as `npm ls` reports it. */
export async function installedVersion(session: UserSession, name: string): Promise<string> {
  const { stdout } = await session.mustSh(`npm ls ${name} --json`, false);
  const tree = JSON.parse(stdout) as {
    dependencies?: Record<string, { version?: string; resolved?: string }>;
  };
  const found = tree.dependencies?.[name];
  if (found?.version === undefined) throw new Error(`${name} is not installed in ${session.project}`);
  return found.version;
}

/**
 * The folder `key` under the run's installs, which `build` fills the first time a project of the run
 * asks for it (the others wait for it): one real install proves what each would, and installing the
 * same tree again took most of the suite's time.
 */
async function installedOnce(key: string, build: (folder: string) => Promise<void>): Promise<string> {
  const template = join(inject("installs"), key);
  const ready = join(template, "ready");
  const failed = join(template, "failed");
  if (await claimFolder(template)) {
    try {
      await build(template);
      await writeFile(ready, "");
    } catch (error) {
      await writeFile(failed, String(error));
      throw error;
    }
  }
  for (let waited = 0; !existsSync(ready); waited += 1) {
    if (existsSync(failed))
      throw new Error(`installing ${template} failed: ${await readFile(failed, "utf8")}`);
    if (waited > 1_200) throw new Error(`installing ${template} took more than 10 minutes`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return template;
}

/** A short content hash, naming a shared install. */
const hashOf = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** The repository's own packages, which a user's project takes from the packed tarballs. */
const REPOSITORY_PACKAGES = new Set(Object.keys(PACKAGES));

/** A lockfile's packages by place (`node_modules/x`), without the project itself. */
type LockedPackages = Record<string, { version?: string }>;

/** The places of a lockfile's packages that are not the repository's own. */
function registryPackages(packages: LockedPackages): Map<string, string | undefined> {
  return new Map(
    Object.entries(packages)
      .filter(([place]) => place !== "" && !REPOSITORY_PACKAGES.has(place.replace(/^.*node_modules\//, "")))
      .map(([place, locked]) => [place, locked.version]),
  );
}

/**
 * Fails unless every package npm installed in `folder` (its `node_modules/.package-lock.json`) is at
 * the place and the version the committed lockfile pins, the repository's packages aside. A project
 * whose dependencies are a part of the lockfile's installs a part of it.
 */
export async function expectInstalledAsPinned(folder: string, pinned: LockedPackages): Promise<void> {
  const installed = JSON.parse(
    await readFile(join(folder, "node_modules", ".package-lock.json"), "utf8"),
  ) as {
    packages: LockedPackages;
  };
  const got = registryPackages(installed.packages);
  expectPinned(
    `${folder} installed other packages than its lockfile pins`,
    registryPackages(pinned),
    got,
    got.keys(),
  );
}

/** Fails, saying `what`, unless each of `names` has the same version in `got` as in `want`. */
function expectPinned(
  what: string,
  want: Map<string, string | undefined>,
  got: Map<string, string | undefined>,
  names: Iterable<string>,
): void {
  const differences = [...names]
    .filter((name) => want.get(name) !== got.get(name))
    .map((name) => `${name}: pinned ${want.get(name) ?? "nothing"}, installed ${got.get(name) ?? "nothing"}`);
  if (differences.length > 0) throw new Error(`${what}:\n  ${differences.slice(0, 20).join("\n  ")}`);
}

/**
 * Fails unless the run's stand-in of the registry served the release's packages, and the project's
 * installed copies of them hold the packed tarballs' files, byte for byte.
 */
export async function expectReleaseInstalled(project: string): Promise<void> {
  const served = await readFile(inject("npmRegistry").log, "utf8");
  for (const [name, spec] of Object.entries(inject("packages"))) {
    const tarball = spec.replace(/^file:/, "");
    expect(served, `${name}'s tarball from the stand-in`).toContain(
      `GET /${name}/-/${basename(tarball)} 200\n`,
    );
    const unpacked = join(dirname(project), `unpacked-${name}`);
    await mkdir(unpacked);
    await mustRun("tar", ["-xzf", tarball, "-C", unpacked, "--strip-components=1"], {
      cwd: unpacked,
      env: process.env,
    });
    const installed = join(project, "node_modules", name);
    // Exit status 0: the same files with the same bytes; what npm installed beneath left aside.
    await mustRun("diff", ["-r", "--brief", "--exclude=node_modules", unpacked, installed], {
      cwd: project,
      env: process.env,
    });
  }
}

/** Whether the project in `folder` (relative to the repository) names a package of the checkout by path. */
async function namesCheckoutByPath(folder: string): Promise<boolean> {
  const manifest = JSON.parse(await readFile(join(REPOSITORY_ROOT, folder, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const specs = { ...manifest.dependencies, ...manifest.devDependencies };
  return Object.keys(PACKAGES).some((name) => specs[name]?.startsWith("file:") === true);
}

/**
 * Puts into `project` the node_modules and lockfile of a finished `npm install` of the same pinned
 * dependencies (see {@link installedOnce}): the release's packages, from the run's stand-in of the
 * registry or packed tarballs, and what `lockfile` (by default the project's own `package-lock.json`)
 * pins, checked to be what was installed. The README's own `npm install` then runs as written and
 * finds the tree complete.
 */
export async function seedDependencies(
  project: string,
  env: NodeJS.ProcessEnv,
  lockfile = join(project, "package-lock.json"),
): Promise<void> {
  if (!existsSync(lockfile))
    throw new Error(`${lockfile} is missing: every user's project installs what a committed lockfile pins`);
  const lock = await readFile(lockfile, "utf8");
  const pinned = (JSON.parse(lock) as { packages: LockedPackages }).packages;
  const manifest = await readFile(join(project, "package.json"), "utf8");
  const npmrc = join(project, ".npmrc");
  const settings = existsSync(npmrc) ? await readFile(npmrc, "utf8") : "";
  const { dependencies, devDependencies } = JSON.parse(manifest) as Record<string, object | undefined>;
  const set = [dependencies, devDependencies].map((deps) => Object.entries(deps ?? {}).sort());
  const key = hashOf(JSON.stringify([set, [...registryPackages(pinned)], settings]));
  const template = await installedOnce(key, async (folder) => {
    await writeFile(join(folder, "package.json"), manifest);
    await writeFile(join(folder, "package-lock.json"), lock);
    // Else npm asks the stand-in, not its cache, about every package of the lockfile.
    await addRegistryUrls(join(folder, "package-lock.json"));
    await writeFile(join(folder, ".npmrc"), settings);
    await mustRun("npm", ["install", "--no-audit", "--no-fund"], {
      cwd: folder,
      env: { ...env, npm_config_registry: inject("npmRegistry").url },
    });
    await expectInstalledAsPinned(folder, pinned);
  });
  await mustRun("cp", ["-a", join(template, "node_modules"), join(template, "package-lock.json"), project], {
    cwd: project,
    env,
  });
}

/** Fails unless the virtual environment's packages (pip aside) are, version by version, `constraints`. */
export async function expectVirtualenvAsPinned(python: string, constraints: string): Promise<void> {
  const { stdout } = await mustRun(python, ["-m", "pip", "freeze", "--all", "--exclude", "pip"], {
    cwd: dirname(python),
    env: process.env,
  });
  const want = pipPins(constraints);
  const got = pipPins(stdout);
  const names = new Set([...want.keys(), ...got.keys()]);
  expectPinned(`${python} has other packages than its constraints pin`, want, got, names);
}

/**
 * Puts into a Python project the virtual environment its Pulumi.yaml names (see
 * {@link copyPinnedVirtualenv}). The README's own `python3 -m venv` and `pip install` run as written
 * and add the SDK alone, from the index the session's environment names; they call pip as
 * `venv/bin/python -m pip`, which holds in a moved environment, where `venv/bin/pip` would not.
 */
export async function seedVirtualenv(project: string, env: NodeJS.ProcessEnv): Promise<void> {
  const settings = parseYaml(await readFile(join(project, "Pulumi.yaml"), "utf8")) as {
    runtime?: { options?: { virtualenv?: unknown } };
  };
  const virtualenv = settings.runtime?.options?.virtualenv;
  if (typeof virtualenv !== "string" || !existsSync(join(project, "requirements.txt"))) return;
  const constraints = await readFile(join(project, "constraints.txt"), "utf8");
  await copyPinnedVirtualenv(constraints, join(project, virtualenv), env);
}

/** Virtual environments of earlier runs on this machine, by the pins and the Python they hold. */
const KEPT_VIRTUALENVS = projectCache("virtualenvs");

/**
 * Copies to `destination` a virtual environment holding every package `constraints` pins but this
 * project's SDK (see {@link installedOnce}), checked to be those pins: installing `pulumi` takes about
 * 25 s of CPU, and the Python example and the Python language host's tests run on the same pins. It is
 * kept in the user's cache folder for later runs, as the machine's pip, Go and engine caches are, and
 * made again when the pins or the machine's Python change.
 */
export async function copyPinnedVirtualenv(
  constraints: string,
  destination: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const seeded = [...pipPins(constraints)]
    .filter(([name]) => name !== PYTHON_PACKAGE)
    .map(([name, version]) => `${name}==${version}\n`)
    .join("");
  const { stdout: python3 } = await mustRun("python3", ["-c", "import sys; print(sys.version)"], {
    cwd: dirname(destination),
    env,
  });
  const key = `venv-${hashOf(seeded + python3)}`;
  const template = await installedOnce(key, async (folder) => {
    const venv = join(folder, "venv");
    const python = join(venv, "bin", "python");
    const kept = join(KEPT_VIRTUALENVS, key);
    if (existsSync(kept)) {
      await mustRun("cp", ["-a", kept, venv], { cwd: folder, env });
      await expectVirtualenvAsPinned(python, seeded).catch((error: unknown) => {
        throw new Error(`${kept}, kept from an earlier run, is not its pins (delete it): ${String(error)}`);
      });
      return;
    }
    await writeFile(join(folder, "seeded.txt"), seeded);
    await mustRun("python3", ["-m", "venv", "venv"], { cwd: folder, env });
    await mustRun(python, ["-m", "pip", "install", "--quiet", "-r", "seeded.txt"], {
      cwd: folder,
      env,
    });
    await expectVirtualenvAsPinned(python, seeded);
    // Copied beside it, then renamed into place: a run reading the folder finds it whole. Another
    // run that kept it first wins.
    const copy = `${kept}.${process.pid}`;
    await mkdir(KEPT_VIRTUALENVS, { recursive: true });
    await mustRun("cp", ["-a", venv, copy], { cwd: folder, env });
    await rename(copy, kept).catch(() => rm(copy, { recursive: true, force: true }));
  });
  await mustRun("cp", ["-a", join(template, "venv"), destination], { cwd: dirname(destination), env });
}

/** One ```sh block of a README's "Run it" section, with the paragraph before it. */
export interface ReadmeStep {
  intro: string;
  code: string;
}

/** The ```sh blocks of the "## Run it" section of `examples/<example>/README.md`, in order. */
export async function runItSteps(example: string): Promise<ReadmeStep[]> {
  const text = await readFile(join(REPOSITORY_ROOT, "examples", example, "README.md"), "utf8");
  const section = /^## Run it\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1];
  if (section === undefined) throw new Error(`examples/${example}/README.md has no "## Run it" section`);
  const steps: ReadmeStep[] = [];
  const block = /([^`]*?)```sh\n([\s\S]*?)```/g;
  for (let match = block.exec(section); match !== null; match = block.exec(section)) {
    steps.push({ intro: (match[1] ?? "").trim(), code: match[2] ?? "" });
  }
  return steps;
}

/** What {@link UserSession.start} copies and how it seeds the copy. */
export interface SessionOptions {
  /** Folders to put first on the user's PATH: the engine's (the e2e set-up's `enginePath`). */
  pathFirst: string[];
  /** A folder, relative to the repository, whose dependencies and lockfile the copy takes. */
  pins?: string;
  /** The project to copy, relative to the repository, instead of `examples/<example>`. */
  source?: string;
  /** False for a test that installs the dependencies its own way. */
  seed?: boolean;
  /** Variables for the user's shell beyond a plain user's (a value `undefined` removes one). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** An account on a server a README started: its API key, and a client of it that does not retry. */
export interface SessionAccount {
  key: string;
  client: NotificationHandlersClient;
}

/**
 * The running test's session in a copy of `examples/<example>` (see {@link UserSession.start}) with
 * the engine first on PATH, disposed when the test ends, and its README's "Run it" steps, which must
 * be `count`.
 */
export async function startExample(
  example: string,
  count: number,
  options: Omit<SessionOptions, "pathFirst"> = {},
): Promise<{ session: UserSession; steps: ReadmeStep[] }> {
  const steps = await runItSteps(example);
  expect(steps, `the "Run it" steps of examples/${example}/README.md`).toHaveLength(count);
  const session = await UserSession.start(example, { pathFirst: inject("enginePath"), ...options });
  onTestFinished(() => session.dispose());
  return { session, steps };
}

/**
 * {@link startExample} for a README that installs from loopback stand-ins: `standIns` started in a
 * scratch folder of their own, and the session's shell given their variables; the stand-ins closed
 * and their folder removed when the test ends, after the session.
 */
export async function startExampleOnStandIns(
  example: string,
  count: number,
  standIns: (work: string) => Promise<Registries>,
): Promise<{ session: UserSession; steps: ReadmeStep[]; standIns: Registries }> {
  const work = await scratchFolder(`stand-ins-${example}`);
  onTestFinished(() => rm(work, { recursive: true, force: true }));
  const started = await standIns(work);
  onTestFinished(() => started.close());
  return { ...(await startExample(example, count, { env: started.env })), standIns: started };
}

/** A shell session in a copy of an example, with the reference servers the README starts. */
export class UserSession {
  /** Everything the session's commands printed, for checks that no secret shows. */
  readonly transcript: string[] = [];
  /** The real address of each server the README started, by the port the README gives it. */
  readonly urls = new Map<string, string>();
  private readonly servers: ChildProcess[] = [];
  private readonly clients: NotificationHandlersClient[] = [];
  /** Aborted on dispose: stops the commands still running (a test that timed out). */
  private readonly running = new AbortController();

  /** The real address of the server the README starts on port 8080. */
  get url(): string | undefined {
    return this.urls.get(README_PORTS[0]);
  }

  private constructor(
    readonly root: string,
    readonly project: string,
    private readonly envFile: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * Copies `examples/<example>` (or the project at `options.source`, relative to the repository) to a
   * scratch folder, its package dependency on the packed tarball (its dependencies and lockfile those of
   * the folder `options.pins` names, when given), seeded with an earlier install of
   * its dependencies (and virtual environment) unless `options.seed` is false (a test that installs
   * them its own way).
   */
  static async start(example: string, options: SessionOptions): Promise<UserSession> {
    const root = await scratchFolder(`user-${example}`);
    const project = join(root, example);
    const source = options.source ?? `examples/${example}`;
    await copyExample({
      source,
      destination: project,
      // A fixture names the checkout's packages by path: the packed tarballs. An example names the
      // release's version, as a user's project does, which npm takes from the registry's stand-in.
      ...((await namesCheckoutByPath(options.pins ?? source)) ? { packages: inject("packages") } : {}),
      ...(options.pins === undefined ? {} : { pins: options.pins }),
    });
    return UserSession.open(root, project, options, async (_, env) => {
      if (options.seed === false) return;
      await seedDependencies(project, env);
      await seedVirtualenv(project, env);
    });
  }

  /**
   * A session in an empty folder `name`, for a test whose user makes the project there (`pulumi
   * new`); `seed`, when given, puts into the folder what an earlier install made.
   */
  static async empty(
    name: string,
    options: Pick<SessionOptions, "pathFirst" | "env">,
    seed?: (project: string, env: NodeJS.ProcessEnv) => Promise<void>,
  ): Promise<UserSession> {
    const root = await scratchFolder(`user-${name}`);
    const project = join(root, name);
    await mkdir(project);
    return UserSession.open(root, project, options, seed);
  }

  private static async open(
    root: string,
    project: string,
    options: Pick<SessionOptions, "pathFirst" | "env">,
    seed?: (project: string, env: NodeJS.ProcessEnv) => Promise<void>,
  ): Promise<UserSession> {
    const envFile = join(root, "session.env");
    await writeFile(envFile, "");
    const env = userEnvironment({
      home: join(root, "home"),
      pathFirst: options.pathFirst,
      extra: {
        // Not ~/.pulumi, as CI often sets it: no command the docs give may assume where plugins live.
        PULUMI_HOME: join(root, "pulumi-home"),
        PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
        npm_config_registry: inject("npmRegistry").url,
      },
    });
    await mkdir(join(root, "state"), { recursive: true });
    // Seeded as the user's earlier installs were made: without the stand-ins of this session.
    await seed?.(project, env);
    applyEnvironment(env, options.env ?? {});
    return new UserSession(root, project, envFile, env);
  }

  /**
   * Runs shell code in the project folder, in the session (exports carry over), to its end, or until
   * `stop` aborts, which kills its process group with SIGKILL. What it prints goes into the transcript
   * unless `record` is false.
   */
  async sh(code: string, record = true, stop?: AbortSignal): Promise<CommandResult> {
    const script = [
      "set -eo pipefail",
      `. ${JSON.stringify(this.envFile)}`,
      `cd ${JSON.stringify(this.project)}`,
      [...this.urls].reduce((text, [port, url]) => text.replaceAll(readmeUrl(port), url), code),
      `export -p > ${JSON.stringify(this.envFile)}`,
    ].join("\n");
    const result = await runCommand("bash", ["-c", script], {
      cwd: this.project,
      env: this.env,
      signal: stop === undefined ? this.running.signal : AbortSignal.any([this.running.signal, stop]),
    });
    if (record) this.transcript.push(result.stdout, result.stderr);
    return result;
  }

  /** Like {@link sh}; a failing command is an error carrying the end of the output. */
  async mustSh(code: string, record = true): Promise<CommandResult> {
    const result = await this.sh(code, record);
    if (result.code !== 0) {
      const tail = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-40).join("\n");
      throw new Error(`the step\n${code}\nexited with ${result.code}:\n${tail}`);
    }
    return result;
  }

  /** A variable the session exported (kept out of the transcript: it may be a secret). */
  async variable(name: string): Promise<string> {
    const { stdout } = await this.mustSh(`printf '%s' "\${${name}:-}"`, false);
    return stdout;
  }

  /**
   * The account whose API key the session exported as `variable`, on the server the README started
   * on `port`; its client is closed with the session.
   */
  async account(variable = "KEY", port: string = README_PORTS[0]): Promise<SessionAccount> {
    const baseURL = this.urls.get(port);
    if (baseURL === undefined) throw new Error(`no server of the README listens on port ${port}`);
    const key = await this.variable(variable);
    const client = new NotificationHandlersClient({ baseURL, apiKey: key, maxRetries: 0 });
    this.clients.push(client);
    return { key, client };
  }

  /**
   * Runs a README step. Each line that starts a server in the background (`... serve ... &`) starts it
   * here, on port 0, and waits until it listens; the rest runs in the session as written.
   */
  async step(step: ReadmeStep): Promise<CommandResult[]> {
    const results: CommandResult[] = [];
    let pending: string[] = [];
    const runPending = async (): Promise<void> => {
      if (pending.join("\n").trim() !== "") results.push(await this.mustSh(pending.join("\n")));
      pending = [];
    };
    for (const line of step.code.split("\n")) {
      if (!/\bserve\b.*&\s*(#.*)?$/.test(line)) {
        pending.push(line);
        continue;
      }
      await runPending();
      await this.startServer(line);
    }
    await runPending();
    return results;
  }

  private async startServer(line: string): Promise<void> {
    const port = README_PORTS.find((p) => line.includes(`--port ${p}`));
    if (port === undefined || this.urls.has(port))
      throw new Error(
        `a README server must listen on a port of its own of ${README_PORTS.join(", ")}: ${line}`,
      );
    const command = line.replace(/&\s*(#.*)?$/, "").replace(`--port ${port}`, "--port 0");
    if (README_PORTS.some((p) => command.includes(p)))
      throw new Error(`cannot move the server off port ${port}: ${line}`);
    const script = `. ${JSON.stringify(this.envFile)}\ncd ${JSON.stringify(this.project)}\nexec ${command}`;
    const child = spawn("bash", ["-c", script], {
      cwd: this.project,
      env: this.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.servers.push(child);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    const lines = createInterface({ input: child.stdout });
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${stderr.trim()}`)));
      lines.on("line", (out) => {
        const match = /^listening on (\S+)/.exec(out);
        if (match?.[1] !== undefined) resolveUrl(match[1]);
      });
    });
    this.urls.set(port, url);
  }

  /** Closes the accounts' clients, stops the servers and removes the scratch folder. */
  async dispose(): Promise<void> {
    this.running.abort();
    for (const client of this.clients) await client.close();
    for (const server of this.servers) {
      if (server.pid === undefined || server.exitCode !== null) continue;
      const exited = new Promise((r) => server.once("exit", r));
      process.kill(-server.pid, "SIGTERM");
      await exited;
    }
    await rm(this.root, { recursive: true, force: true, maxRetries: 5 });
  }
}
