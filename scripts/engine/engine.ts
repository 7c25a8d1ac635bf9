#!/usr/bin/env node
/**
 * Makes the Pulumi engine available and prints its bin folder.
 *
 * Order of preference:
 * 1. a `pulumi` already on PATH (an installed Pulumi CLI);
 * 2. a CLI built earlier by this script, cached under the user's cache folder;
 * 3. a CLI built now from the Go module `github.com/pulumi/pulumi/pkg/v3`, at the version of
 *    `@pulumi/pulumi` in package-lock.json, or the nearest lower version the Go module proxy serves.
 *
 * The bin folder also gets `pulumi-resource-pulumi-nodejs`, the dynamic-provider plugin shipped in the
 * `@pulumi/pulumi` npm package, so the engine finds it next to the CLI.
 *
 * `pulumi up` in a project folder also needs the program's language host, `pulumi-language-nodejs`,
 * `-python` or `-go`: for each language an installed one (on PATH, or next to an installed CLI) wins;
 * else the project's own (`scripts/engine/language-host`), from a bin folder of the checkout's own beside the
 * cached CLI (see docs/engine.md#the-language-host). Inline programs run through the Automation API
 * need none.
 *
 * Pulumi YAML programs need `pulumi-language-yaml`: an installed one wins; else the one built from
 * its Go module at {@link YAML_HOST_VERSION} and cached, placed next to the cached CLI.
 *
 * Run as a script, it prints the folders to put first on PATH, joined with the path delimiter: the
 * engine's bin folder, the language hosts' folders when they are elsewhere, and the folder of the
 * Node.js that runs the script (npm scripts run the project's pinned Node.js).
 */
import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, copyFile, link, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { delimiter, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

import { withDirLock } from "../support/dir-lock";
import { step } from "../support/progress";
import { projectCache, userCache } from "../support/project-cache";

const run = promisify(execFile);

const CLI_MODULE = "github.com/pulumi/pulumi/pkg/v3";
const SDK_MODULE = "github.com/pulumi/pulumi/sdk/v3";
// The host's name that an earlier version of this script built from withdrawn sources.
const WITHDRAWN_HOST = "pulumi-language-nodejs";
/** The languages the project has a language host of its own for, as Pulumi.yaml's `runtime` names them. */
const HOST_LANGUAGES = ["nodejs", "python", "go"] as const;
type HostLanguage = (typeof HOST_LANGUAGES)[number];
const YAML_HOST = "pulumi-language-yaml";
const YAML_HOST_MODULE = "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml";
/** The Pulumi YAML release whose language host is built when none is installed. */
export const YAML_HOST_VERSION = "v1.25.0";
// The project's own hosts, compiled, relative to the checkout; their launchers name it.
const PROJECT_HOST = "dist/scripts/engine/language-host/main.js";
// What a launcher of the project's hosts names, whichever checkout wrote it: one on PATH from a
// checkout of another layout (dist/scripts/language-host/) is no installed host either.
const PROJECT_HOST_MARK = "/language-host/main.js";
// pkg/v3's go.mod replaces this module; a build outside the Pulumi repository has to repeat it.
const CLIPBOARD_REPLACE =
  "github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e";
const DYNAMIC_PROVIDER_PLUGIN = "pulumi-resource-pulumi-nodejs";
// How many minor versions below the wanted one to try when the proxy does not serve it.
const MAX_FALLBACK_MINORS = 40;

/** Where the engine came from and where it is. */
export interface Engine {
  /** Folder holding `pulumi` and the dynamic-provider plugin; put it first on PATH. */
  binDir: string;
  /** The CLI's version, as `pulumi version` prints it. */
  version: string;
  source: "path" | "cache" | "built";
  /** The language hosts, which `pulumi up` in a project folder runs the program with. */
  languageHosts: Record<HostLanguage, LanguageHost>;
  /** The folder of Pulumi YAML's language host, when it was asked for and is not in `binDir`. */
  yamlHostDir?: string;
}

/** Which `pulumi-language-<language>` the CLI will find first on PATH. */
interface LanguageHost {
  /** The folder holding it. */
  dir: string;
  /** "installed" with an installed Pulumi; "project" for the project's own (scripts/engine/language-host). */
  source: "installed" | "project";
}

/** The folders to put first on PATH so the engine, its plugins and the pinned Node.js are found. */
export function enginePath(engine: Engine): string[] {
  const dirs = [engine.binDir];
  for (const { dir } of Object.values(engine.languageHosts)) if (!dirs.includes(dir)) dirs.push(dir);
  if (engine.yamlHostDir !== undefined) dirs.push(engine.yamlHostDir);
  dirs.push(dirname(process.execPath));
  return dirs;
}

/** Options of {@link ensureEngine}. */
interface EnsureEngineOptions {
  /** The package root holding package-lock.json and node_modules/@pulumi/pulumi. */
  projectRoot?: string;
  /** Where progress goes while building (minutes the first time). */
  log?: (line: string) => void;
  /** Ignore a `pulumi` on PATH. */
  ignorePath?: boolean;
  /** Also make Pulumi YAML's language host available (minutes the first time it is built). */
  yaml?: boolean;
  /** Where PATH and XDG_CACHE_HOME are read, and what commands run with; `process.env` unless given. */
  env?: NodeJS.ProcessEnv;
}

function cacheRoot(env: NodeJS.ProcessEnv): string {
  return projectCache("engine", env);
}

/** The first executable `command` on PATH that `accept` takes. */
async function which(
  command: string,
  env: NodeJS.ProcessEnv,
  accept: (path: string) => boolean = () => true,
): Promise<string | undefined> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    try {
      const info = await stat(candidate);
      if (info.isFile() && (info.mode & 0o111) !== 0 && accept(candidate)) return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

async function cliVersion(pulumi: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const { stdout } = await run(pulumi, ["version"], {
      env: { ...env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      timeout: 30_000, // 30 s
    });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

/** The @pulumi/pulumi version recorded in package-lock.json. */
async function lockedPulumiVersion(projectRoot: string): Promise<string> {
  const lock = JSON.parse(await readFile(join(projectRoot, "package-lock.json"), "utf8")) as {
    packages?: Record<string, { version?: string }>;
  };
  const version = lock.packages?.["node_modules/@pulumi/pulumi"]?.version;
  if (version === undefined) throw new Error("package-lock.json has no node_modules/@pulumi/pulumi entry");
  return version;
}

function goEnv(env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // The release build is static (CGO off). GOTOOLCHAIN stays as the machine has it, so an older Go
  // can fetch the toolchain the modules ask for from the module proxy.
  return { ...env, CGO_ENABLED: "0", GOFLAGS: "-mod=mod -buildvcs=false", ...extra };
}

/** Runs a command, forwarding a summary of its output to `log`; rejects with its stderr tail. */
function runLogged(
  command: string,
  args: string[],
  cwd: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const tail: string[] = [];
    let downloads = 0;
    const onLine = (line: string): void => {
      if (line.trim() === "") return;
      tail.push(line);
      if (tail.length > 30) tail.shift();
      // Module downloads come by the hundred; report them in batches.
      if (line.startsWith("go: downloading")) {
        downloads++;
        if (downloads % 50 === 0) log(`  ... ${downloads} modules downloaded`);
      } else if (!line.startsWith("go: finding")) {
        log(`  ${line}`);
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        lines.forEach(onLine);
      });
    }
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${command} ${args.join(" ")} failed (exit ${code}):\n${tail.join("\n")}`));
    });
  });
}

async function moduleAvailable(
  module: string,
  version: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  try {
    await run("go", ["mod", "download", "-json", `${module}@${version}`], {
      cwd,
      env: goEnv(env),
      timeout: 600_000, // 10 min: the first download of a large module is slow
    });
    return true;
  } catch {
    return false;
  }
}

function lowerVersions(wanted: string): string[] {
  const match = /^3\.(\d+)\.(\d+)$/.exec(wanted);
  if (!match) return [wanted];
  const minor = Number(match[1]);
  const versions = [wanted];
  for (let m = minor - 1; m >= Math.max(0, minor - MAX_FALLBACK_MINORS); m--) versions.push(`3.${m}.0`);
  return versions;
}

async function buildFromGo(
  wanted: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<CliFound> {
  const scratch = join(cacheRoot(env), "go-module");
  await mkdir(scratch, { recursive: true });
  await writeFile(join(scratch, "go.mod"), "module enginebuild\n\ngo 1.24\n");

  const version = await step(
    log,
    `Looking for ${CLI_MODULE} at v${wanted} (the @pulumi/pulumi version in package-lock.json)`,
    async () => {
      for (const candidate of lowerVersions(wanted)) {
        if (
          (await moduleAvailable(CLI_MODULE, `v${candidate}`, scratch, env)) &&
          (await moduleAvailable(SDK_MODULE, `v${candidate}`, scratch, env))
        ) {
          return candidate;
        }
        log(`  v${candidate} is not served by the Go module proxy; trying an older one`);
      }
      return undefined;
    },
  );
  if (version === undefined) {
    throw new Error(
      `No version of ${CLI_MODULE} between v${wanted} and ${MAX_FALLBACK_MINORS} minors below it could be downloaded.`,
    );
  }
  if (version !== wanted)
    log(`Building the nearest version that can be fetched: v${version} (wanted v${wanted}).`);

  const binDir = join(cacheRoot(env), `v${version}`, "bin");
  await mkdir(binDir, { recursive: true });
  const src = join(cacheRoot(env), `v${version}`, "src");
  await rm(src, { recursive: true, force: true });
  await mkdir(src, { recursive: true });

  const requires = [`\t${CLI_MODULE} v${version}`, `\t${SDK_MODULE} v${version}`];
  await writeFile(
    join(src, "go.mod"),
    `module enginebuild\n\ngo 1.24\n\nrequire (\n${requires.join("\n")}\n)\n\nreplace ${CLIPBOARD_REPLACE}\n`,
  );
  const imports = [`\t_ "${CLI_MODULE}/cmd/pulumi"`];
  await writeFile(
    join(src, "tools.go"),
    `//go:build tools\n\npackage tools\n\nimport (\n${imports.join("\n")}\n)\n`,
  );

  await step(log, "Resolving the CLI's Go dependencies (about 340 modules; minutes the first time)", () =>
    runLogged("go", ["mod", "tidy"], src, log, goEnv(env)),
  );
  // The release build stamps the version; without it the Automation API's version check fails.
  const ldflags = `-X ${SDK_MODULE}/go/common/version.Version=v${version}`;
  await step(log, `Compiling pulumi v${version} (minutes the first time on two cores)`, () =>
    runLogged(
      "go",
      ["build", "-trimpath", "-ldflags", ldflags, "-o", join(binDir, "pulumi"), `${CLI_MODULE}/cmd/pulumi`],
      src,
      log,
      goEnv(env),
    ),
  );
  await writeFile(join(dirname(binDir), "version"), `v${version}\n`);
  return { binDir, version: `v${version}`, source: "built" };
}

async function installDynamicProviderPlugin(binDir: string, projectRoot: string): Promise<void> {
  const source = join(projectRoot, "node_modules", "@pulumi", "pulumi", DYNAMIC_PROVIDER_PLUGIN);
  const target = join(binDir, DYNAMIC_PROVIDER_PLUGIN);
  if (existsSync(source)) {
    await copyFile(source, target);
    await chmod(target, 0o755);
  }
}

/** Runs `work` holding the engine cache's lock: one process builds or installs into it at a time. */
function withLock<T>(
  env: NodeJS.ProcessEnv,
  work: () => Promise<T>,
  log: (line: string) => void,
): Promise<T> {
  return withDirLock(
    join(cacheRoot(env), ".lock"),
    {
      staleAfterMs: 30 * 60_000, // 30 min: a build takes minutes, an older lock is a killed build's
      pollMs: 2_000,
      onWait: () => log("Waiting for another build of the engine to finish..."),
      waitNoticeEvery: 30,
    },
    work,
  );
}

/** The CLI found or built, before the language host is looked for. */
type CliFound = Omit<Engine, "languageHosts">;

/** Finds or builds the CLI (see the file comment for the order). */
async function ensureCli(
  projectRoot: string,
  options: EnsureEngineOptions,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<CliFound> {
  if (options.ignorePath !== true) {
    const onPath = await which("pulumi", env);
    if (onPath !== undefined && !onPath.startsWith(cacheRoot(env))) {
      const version = await cliVersion(onPath, env);
      if (version !== undefined) return { binDir: dirname(onPath), version, source: "path" };
    }
  }

  const wanted = await lockedPulumiVersion(projectRoot);
  return withLock(
    env,
    async () => {
      for (const candidate of lowerVersions(wanted)) {
        const binDir = join(cacheRoot(env), `v${candidate}`, "bin");
        const pulumi = join(binDir, "pulumi");
        if (!existsSync(pulumi)) continue;
        const version = await cliVersion(pulumi, env);
        if (version === undefined) continue;
        await installDynamicProviderPlugin(binDir, projectRoot);
        return { binDir, version, source: "cache" as const };
      }
      if ((await which("go", env)) === undefined) {
        throw new Error(
          [
            "The Pulumi CLI is not on PATH and Go is not installed to build it.",
            "Install the Pulumi CLI (https://www.pulumi.com/docs/install/), for example:",
            "  curl -fsSL https://get.pulumi.com | sh",
            "or install Go (https://go.dev/dl/) and run `npm run engine` again to build it from source.",
          ].join("\n"),
        );
      }
      const built = await buildFromGo(wanted, env, log);
      await installDynamicProviderPlugin(built.binDir, projectRoot);
      const version = await cliVersion(join(built.binDir, "pulumi"), env);
      if (version === undefined) throw new Error(`The built CLI in ${built.binDir} does not run.`);
      log(`Pulumi ${version} is ready in ${built.binDir}`);
      return { ...built, version };
    },
    log,
  );
}

/** Where an earlier version of this script put language hosts built from withdrawn sources. */
function withdrawnLanguageHosts(env: NodeJS.ProcessEnv): string[] {
  const root = cacheRoot(env);
  const nextToCachedClis = existsSync(root)
    ? readdirSync(root).map((version) => join(root, version, "bin", WITHDRAWN_HOST))
    : [];
  return [join(userCache(env), WITHDRAWN_HOST), ...nextToCachedClis].filter((path) => existsSync(path));
}

/** Whether `path` is a launcher of this project's host (of any checkout), which is no installed host. */
function isProjectLanguageHost(path: string): boolean {
  return readFileSync(path).subarray(0, 4096).toString("latin1").includes(PROJECT_HOST_MARK);
}

/**
 * Puts `source` at `target` as a hard link (a copy across file systems), replacing what was there.
 * Callers may run at once (two test projects' set-ups), so each writes a temporary name of its own.
 */
async function place(source: string, target: string): Promise<void> {
  const [from, to] = await Promise.all([stat(source), stat(target).catch(() => undefined)]);
  if (to !== undefined && to.dev === from.dev && to.ino === from.ino) return;
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await link(source, temporary).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EXDEV") throw error;
    await copyFile(source, temporary);
  });
  await rename(temporary, target);
}

/**
 * The folder that runs this checkout's own language hosts, for the `languages` given; a launcher of
 * another language is removed, so that it does not hide an installed host further on PATH. With the
 * cached CLI it is a bin folder of the checkout's own, the CLI and the dynamic-provider plugin
 * hard-linked beside the launchers: the CLI finds the hosts next to itself, as in an installed Pulumi,
 * and warns of none on PATH.
 */
async function projectLanguageHostDir(
  cli: CliFound,
  projectRoot: string,
  languages: HostLanguage[],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const host = join(projectRoot, PROJECT_HOST);
  if (!existsSync(host))
    throw new Error(
      `The project's language host is not built: run \`npm run build\` in ${projectRoot} first.`,
    );
  const checkout = createHash("sha256").update(projectRoot).digest("hex").slice(0, 16);
  const dir = join(cacheRoot(env), "checkouts", checkout, "bin");
  await mkdir(dir, { recursive: true });
  if (cli.source !== "path") {
    for (const name of ["pulumi", DYNAMIC_PROVIDER_PLUGIN])
      await place(join(cli.binDir, name), join(dir, name));
  }
  for (const language of HOST_LANGUAGES) {
    const command = `pulumi-language-${language}`;
    if (!languages.includes(language)) {
      await rm(join(dir, command), { force: true });
      continue;
    }
    const launcher = join(dir, `${command}.${process.pid}.${randomBytes(4).toString("hex")}`);
    await writeFile(
      launcher,
      `#!/bin/sh\n# The ${language} language host of the checkout ${projectRoot} (see its docs/engine.md).\n` +
        `exec node ${JSON.stringify(host)} --language=${language} "$@"\n`,
      { mode: 0o755 },
    );
    await rename(launcher, join(dir, command));
  }
  return dir;
}

/**
 * The language hosts: for each language an installed one (on PATH, or next to an installed CLI) wins;
 * else the project's own, which runs from this checkout's `dist`. Hosts that an earlier version of this
 * script built from withdrawn sources are deleted first.
 */
async function findLanguageHosts(
  cli: CliFound,
  projectRoot: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<Engine> {
  for (const withdrawn of withdrawnLanguageHosts(env)) {
    log(`Deleting ${withdrawn}: a language host built from sources that may not be used`);
    await rm(withdrawn, { recursive: true, force: true });
  }
  const installed = new Map<HostLanguage, string>();
  for (const language of HOST_LANGUAGES) {
    const command = `pulumi-language-${language}`;
    const nextToCli = join(cli.binDir, command);
    const found =
      cli.source === "path" && existsSync(nextToCli)
        ? nextToCli
        : await which(command, env, (path) => !isProjectLanguageHost(path));
    if (found !== undefined) installed.set(language, dirname(found));
  }
  const missing = HOST_LANGUAGES.filter((language) => !installed.has(language));
  const dir = missing.length > 0 ? await projectLanguageHostDir(cli, projectRoot, missing, env) : undefined;
  const hostOf = (language: HostLanguage): LanguageHost => {
    const installedDir = installed.get(language);
    // `dir` is set whenever a language has no installed host.
    return installedDir !== undefined
      ? { dir: installedDir, source: "installed" }
      : { dir: dir ?? cli.binDir, source: "project" };
  };
  const languageHosts = Object.fromEntries(
    HOST_LANGUAGES.map((language) => [language, hostOf(language)]),
  ) as Record<HostLanguage, LanguageHost>;
  return { ...cli, binDir: cli.source === "path" || dir === undefined ? cli.binDir : dir, languageHosts };
}

/**
 * The folder of Pulumi YAML's language host: an installed one (next to an installed CLI, or on PATH)
 * wins; else the one built by `go install` from its module at {@link YAML_HOST_VERSION}, cached.
 */
async function yamlHostDir(
  cli: CliFound,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<string> {
  if (cli.source === "path" && existsSync(join(cli.binDir, YAML_HOST))) return cli.binDir;
  const installed = await which(YAML_HOST, env, (path) => !path.startsWith(cacheRoot(env)));
  if (installed !== undefined) return dirname(installed);
  const dir = join(cacheRoot(env), `yaml-${YAML_HOST_VERSION}`, "bin");
  if (existsSync(join(dir, YAML_HOST))) return dir;
  return withLock(
    env,
    async () => {
      if (existsSync(join(dir, YAML_HOST))) return dir;
      await mkdir(dir, { recursive: true });
      // `go install module@version` builds outside any module, so it takes no -mod flag.
      await step(
        log,
        `Building ${YAML_HOST} ${YAML_HOST_VERSION} from its Go module (minutes the first time)`,
        () =>
          runLogged(
            "go",
            ["install", "-trimpath", `${YAML_HOST_MODULE}@${YAML_HOST_VERSION}`],
            cacheRoot(env),
            log,
            goEnv(env, { GOBIN: dir, GOFLAGS: "-buildvcs=false" }),
          ),
      );
      return dir;
    },
    log,
  );
}

/** Finds or builds the Pulumi engine and its language hosts; see the file comment for the order. */
export async function ensureEngine(options: EnsureEngineOptions = {}): Promise<Engine> {
  const projectRoot = resolve(options.projectRoot ?? join(__dirname, "..", "..", ".."));
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const env = options.env ?? process.env;
  const cli = await ensureCli(projectRoot, options, env, log);
  const engine = await findLanguageHosts(cli, projectRoot, env, log);
  if (options.yaml !== true) return engine;
  const yamlDir = await yamlHostDir(cli, env, log);
  if (yamlDir === engine.binDir) return engine;
  // Next to a CLI of the cache, as an installed Pulumi has it: the CLI then finds it without a warning.
  if (engine.binDir !== cli.binDir) {
    await place(join(yamlDir, YAML_HOST), join(engine.binDir, YAML_HOST));
    return engine;
  }
  return { ...engine, yamlHostDir: yamlDir };
}

if (require.main === module) {
  ensureEngine({ yaml: true }).then(
    (engine) => {
      process.stderr.write(`pulumi ${engine.version}\n`);
      for (const [language, host] of Object.entries(engine.languageHosts)) {
        const which = host.source === "installed" ? "the installed one" : "the project's own";
        process.stderr.write(`pulumi-language-${language}: ${which}, in ${host.dir}\n`);
      }
      process.stdout.write(`${enginePath(engine).join(delimiter)}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
