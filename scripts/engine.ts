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
 * `pulumi up` in a project folder also needs the Node.js language host, `pulumi-language-nodejs`: taken
 * from PATH or next to the CLI, else built by `../shared/engine/build-language-host` where that script
 * exists beside the checkout (the Go module proxy does not serve the language host's module, so its
 * sources are kept there), else reported missing with what to install. Inline programs run through the
 * Automation API do not need it.
 *
 * Run as a script, it prints the folders to put first on PATH, joined with the path delimiter: the
 * engine's bin folder, the language host's folder when it is elsewhere, and the folder of the Node.js
 * that runs the script (npm scripts run the project's pinned Node.js).
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

const CLI_MODULE = "github.com/pulumi/pulumi/pkg/v3";
const SDK_MODULE = "github.com/pulumi/pulumi/sdk/v3";
const LANGUAGE_HOST = "pulumi-language-nodejs";
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
  /** The folder holding `pulumi-language-nodejs` (project folders need it; inline programs do not). */
  languageHostDir: string | undefined;
  /** Why there is no language host, and what to do about it; set when `languageHostDir` is not. */
  languageHostMissing: string | undefined;
}

/** The folders to put first on PATH so the engine, its plugins and the pinned Node.js are found. */
export function enginePath(engine: Engine): string[] {
  const dirs = [engine.binDir];
  if (engine.languageHostDir !== undefined && engine.languageHostDir !== engine.binDir)
    dirs.push(engine.languageHostDir);
  dirs.push(dirname(process.execPath));
  return dirs;
}

/** Options of {@link ensureEngine}. */
export interface EnsureEngineOptions {
  /** The package root holding package-lock.json and node_modules/@pulumi/pulumi. */
  projectRoot?: string;
  /** Where progress goes while building (minutes the first time). */
  log?: (line: string) => void;
  /** Ignore a `pulumi` on PATH. */
  ignorePath?: boolean;
  /** The script that builds the language host; default `../shared/engine/build-language-host` beside the checkout. */
  languageHostBuilder?: string;
}

function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache");
  return join(base, "pulumi-notification-handlers", "engine");
}

async function which(command: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    try {
      const info = await stat(candidate);
      if (info.isFile() && (info.mode & 0o111) !== 0) return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

async function cliVersion(pulumi: string): Promise<string | undefined> {
  try {
    const { stdout } = await run(pulumi, ["version"], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      timeout: 30_000, // 30 s
    });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

/** The @pulumi/pulumi version recorded in package-lock.json. */
export async function lockedPulumiVersion(projectRoot: string): Promise<string> {
  const lock = JSON.parse(await readFile(join(projectRoot, "package-lock.json"), "utf8")) as {
    packages?: Record<string, { version?: string }>;
  };
  const version = lock.packages?.["node_modules/@pulumi/pulumi"]?.version;
  if (version === undefined) throw new Error("package-lock.json has no node_modules/@pulumi/pulumi entry");
  return version;
}

function goEnv(): NodeJS.ProcessEnv {
  // The release build is static (CGO off). GOTOOLCHAIN stays as the machine has it, so an older Go
  // can fetch the toolchain the modules ask for from the module proxy.
  return { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=mod -buildvcs=false" };
}

/** Runs a command, forwarding a summary of its output to `log`; rejects with its stderr tail. */
function runLogged(command: string, args: string[], cwd: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: goEnv(), stdio: ["ignore", "pipe", "pipe"] });
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

async function moduleAvailable(module: string, version: string, cwd: string): Promise<boolean> {
  try {
    await run("go", ["mod", "download", "-json", `${module}@${version}`], {
      cwd,
      env: goEnv(),
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

async function buildFromGo(wanted: string, log: (line: string) => void): Promise<CliFound> {
  const scratch = join(cacheRoot(), "go-module");
  await mkdir(scratch, { recursive: true });
  await writeFile(join(scratch, "go.mod"), "module enginebuild\n\ngo 1.24\n");

  log(`Looking for ${CLI_MODULE} at v${wanted} (the @pulumi/pulumi version in package-lock.json)...`);
  let version: string | undefined;
  for (const candidate of lowerVersions(wanted)) {
    if (
      (await moduleAvailable(CLI_MODULE, `v${candidate}`, scratch)) &&
      (await moduleAvailable(SDK_MODULE, `v${candidate}`, scratch))
    ) {
      version = candidate;
      break;
    }
    log(`  v${candidate} is not served by the Go module proxy; trying an older one`);
  }
  if (version === undefined) {
    throw new Error(
      `No version of ${CLI_MODULE} between v${wanted} and ${MAX_FALLBACK_MINORS} minors below it could be downloaded.`,
    );
  }
  if (version !== wanted)
    log(`Building the nearest version that can be fetched: v${version} (wanted v${wanted}).`);

  const binDir = join(cacheRoot(), `v${version}`, "bin");
  await mkdir(binDir, { recursive: true });
  const src = join(cacheRoot(), `v${version}`, "src");
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

  log("Resolving the CLI's Go dependencies (about 340 modules; minutes the first time)...");
  await runLogged("go", ["mod", "tidy"], src, log);
  // The release build stamps the version; without it the Automation API's version check fails.
  const ldflags = `-X ${SDK_MODULE}/go/common/version.Version=v${version}`;
  log(`Compiling pulumi v${version} (minutes the first time on two cores)...`);
  await runLogged(
    "go",
    ["build", "-trimpath", "-ldflags", ldflags, "-o", join(binDir, "pulumi"), `${CLI_MODULE}/cmd/pulumi`],
    src,
    log,
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

async function withLock<T>(work: () => Promise<T>, log: (line: string) => void): Promise<T> {
  const lock = join(cacheRoot(), ".lock");
  await mkdir(cacheRoot(), { recursive: true });
  for (let waited = 0; ; waited++) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // Another process is building; a lock older than 30 minutes is left from a killed build.
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > 30 * 60_000) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (waited % 30 === 0) log("Waiting for another build of the engine to finish...");
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** The CLI found or built, before the language host is looked for. */
type CliFound = Omit<Engine, "languageHostDir" | "languageHostMissing">;

/** Finds or builds the CLI (see the file comment for the order). */
async function ensureCli(
  projectRoot: string,
  options: EnsureEngineOptions,
  log: (line: string) => void,
): Promise<CliFound> {
  if (options.ignorePath !== true) {
    const onPath = await which("pulumi");
    if (onPath !== undefined && !onPath.startsWith(cacheRoot())) {
      const version = await cliVersion(onPath);
      if (version !== undefined) return { binDir: dirname(onPath), version, source: "path" };
    }
  }

  const wanted = await lockedPulumiVersion(projectRoot);
  return withLock(async () => {
    for (const candidate of lowerVersions(wanted)) {
      const binDir = join(cacheRoot(), `v${candidate}`, "bin");
      const pulumi = join(binDir, "pulumi");
      if (!existsSync(pulumi)) continue;
      const version = await cliVersion(pulumi);
      if (version === undefined) continue;
      await installDynamicProviderPlugin(binDir, projectRoot);
      return { binDir, version, source: "cache" as const };
    }
    if ((await which("go")) === undefined) {
      throw new Error(
        [
          "The Pulumi CLI is not on PATH and Go is not installed to build it.",
          "Install the Pulumi CLI (https://www.pulumi.com/docs/install/), for example:",
          "  curl -fsSL https://get.pulumi.com | sh",
          "or install Go (https://go.dev/dl/) and run `npm run engine` again to build it from source.",
        ].join("\n"),
      );
    }
    const built = await buildFromGo(wanted, log);
    await installDynamicProviderPlugin(built.binDir, projectRoot);
    const version = await cliVersion(join(built.binDir, "pulumi"));
    if (version === undefined) throw new Error(`The built CLI in ${built.binDir} does not run.`);
    log(`Pulumi ${version} is ready in ${built.binDir}`);
    return { ...built, version };
  }, log);
}

/**
 * Finds the Node.js language host: on PATH, next to the CLI, else built by the builder script where it
 * exists (into the engine's cache folder when the CLI is ours, else the script's own default).
 */
async function ensureLanguageHost(
  cli: CliFound,
  projectRoot: string,
  options: EnsureEngineOptions,
  log: (line: string) => void,
): Promise<Pick<Engine, "languageHostDir" | "languageHostMissing">> {
  const found = existsSync(join(cli.binDir, LANGUAGE_HOST))
    ? join(cli.binDir, LANGUAGE_HOST)
    : await which(LANGUAGE_HOST);
  if (found !== undefined) return { languageHostDir: dirname(found), languageHostMissing: undefined };

  const builder =
    options.languageHostBuilder ?? join(projectRoot, "..", "shared", "engine", "build-language-host");
  if (!existsSync(builder)) {
    return {
      languageHostDir: undefined,
      languageHostMissing:
        `${LANGUAGE_HOST} (the Node.js language host, which \`pulumi up\` in a project folder needs) is ` +
        `neither on PATH nor next to ${join(cli.binDir, "pulumi")}, and there is no ${builder} to build it. ` +
        "An installed Pulumi CLI ships it (https://www.pulumi.com/docs/install/).",
    };
  }
  if ((await which("go")) === undefined) {
    return {
      languageHostDir: undefined,
      languageHostMissing: `${LANGUAGE_HOST} is not on PATH and Go is not installed to build it with ${builder}.`,
    };
  }
  const target = cli.source === "path" ? [] : [cli.binDir];
  log(`Building ${LANGUAGE_HOST} with ${builder}...`);
  const { stdout } = await run(builder, target, {
    env: goEnv(),
    timeout: 900_000 /* 15 min: a cold Go cache */,
  });
  const dir = stdout.trim().split("\n").pop() ?? "";
  if (!existsSync(join(dir, LANGUAGE_HOST)))
    throw new Error(`${builder} finished but left no ${LANGUAGE_HOST} in ${JSON.stringify(dir)}`);
  return { languageHostDir: dir, languageHostMissing: undefined };
}

/** Finds or builds the Pulumi engine and its language host; see the file comment for the order. */
export async function ensureEngine(options: EnsureEngineOptions = {}): Promise<Engine> {
  const projectRoot = resolve(options.projectRoot ?? join(__dirname, "..", ".."));
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cli = await ensureCli(projectRoot, options, log);
  return { ...cli, ...(await ensureLanguageHost(cli, projectRoot, options, log)) };
}

if (require.main === module) {
  ensureEngine().then(
    (engine) => {
      if (engine.languageHostMissing !== undefined)
        process.stderr.write(`warning: ${engine.languageHostMissing}\n`);
      process.stdout.write(`${enginePath(engine).join(delimiter)}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
