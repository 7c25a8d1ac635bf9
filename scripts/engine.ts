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
 * The Node.js language host (`pulumi-language-nodejs`) is built too when its Go module can be fetched.
 * The project's tests and demo do not need it: they run programs inline through the Automation API,
 * which serves the language runtime from the calling process (`pulumi up --client`).
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
const LANGUAGE_HOST_MODULE = "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3";
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
  /** Whether `pulumi-language-nodejs` is in binDir (local programs need it; inline programs do not). */
  hasLanguageHost: boolean;
}

/** Options of {@link ensureEngine}. */
export interface EnsureEngineOptions {
  /** The package root holding package-lock.json and node_modules/@pulumi/pulumi. */
  projectRoot?: string;
  /** Where progress goes while building (minutes the first time). */
  log?: (line: string) => void;
  /** Ignore a `pulumi` on PATH. */
  ignorePath?: boolean;
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

/** Commit and time of a pkg/v3 tag, for the language host's pseudo-version. */
async function languageHostPseudoVersion(version: string, cwd: string): Promise<string | undefined> {
  try {
    const { stdout } = await run("go", ["mod", "download", "-json", `${CLI_MODULE}@v${version}`], {
      cwd,
      env: goEnv(),
    });
    const info = JSON.parse(stdout) as { Info?: string };
    if (info.Info === undefined) return undefined;
    const meta = JSON.parse(await readFile(info.Info, "utf8")) as {
      Time?: string;
      Origin?: { Hash?: string };
    };
    if (meta.Time === undefined || meta.Origin?.Hash === undefined) return undefined;
    const stamp = meta.Time.replace(/[-:TZ]/g, "").slice(0, 14);
    return `v3.0.0-${stamp}-${meta.Origin.Hash.slice(0, 12)}`;
  } catch {
    return undefined;
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

async function buildFromGo(wanted: string, log: (line: string) => void): Promise<Engine> {
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

  const languageHost = await languageHostPseudoVersion(version, scratch);
  const withLanguageHost =
    languageHost !== undefined && (await moduleAvailable(LANGUAGE_HOST_MODULE, languageHost, scratch));
  if (!withLanguageHost) {
    log(`  ${LANGUAGE_HOST_MODULE} is not served by the Go module proxy; building the CLI alone`);
    log("  (inline programs through the Automation API do not need the language host)");
  }

  const requires = [`\t${CLI_MODULE} v${version}`, `\t${SDK_MODULE} v${version}`];
  if (withLanguageHost && languageHost !== undefined)
    requires.push(`\t${LANGUAGE_HOST_MODULE} ${languageHost}`);
  await writeFile(
    join(src, "go.mod"),
    `module enginebuild\n\ngo 1.24\n\nrequire (\n${requires.join("\n")}\n)\n\nreplace ${CLIPBOARD_REPLACE}\n`,
  );
  const imports = [`\t_ "${CLI_MODULE}/cmd/pulumi"`];
  if (withLanguageHost) imports.push(`\t_ "${LANGUAGE_HOST_MODULE}"`);
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
  if (withLanguageHost) {
    log("Compiling pulumi-language-nodejs...");
    await runLogged(
      "go",
      [
        "build",
        "-trimpath",
        "-ldflags",
        ldflags,
        "-o",
        join(binDir, "pulumi-language-nodejs"),
        LANGUAGE_HOST_MODULE,
      ],
      src,
      log,
    );
  }
  await writeFile(join(dirname(binDir), "version"), `v${version}\n`);
  return { binDir, version: `v${version}`, source: "built", hasLanguageHost: withLanguageHost };
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

/** Finds or builds the Pulumi engine; see the file comment for the order. */
export async function ensureEngine(options: EnsureEngineOptions = {}): Promise<Engine> {
  const projectRoot = resolve(options.projectRoot ?? join(__dirname, "..", ".."));
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  if (options.ignorePath !== true) {
    const onPath = await which("pulumi");
    if (onPath !== undefined && !onPath.startsWith(cacheRoot())) {
      const version = await cliVersion(onPath);
      if (version !== undefined) {
        const binDir = dirname(onPath);
        return {
          binDir,
          version,
          source: "path",
          hasLanguageHost: existsSync(join(binDir, "pulumi-language-nodejs")),
        };
      }
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
      return {
        binDir,
        version,
        source: "cache" as const,
        hasLanguageHost: existsSync(join(binDir, "pulumi-language-nodejs")),
      };
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
    const engine = await buildFromGo(wanted, log);
    await installDynamicProviderPlugin(engine.binDir, projectRoot);
    const version = await cliVersion(join(engine.binDir, "pulumi"));
    if (version === undefined) throw new Error(`The built CLI in ${engine.binDir} does not run.`);
    log(`Pulumi ${version} is ready in ${engine.binDir}`);
    return { ...engine, version };
  }, log);
}

if (require.main === module) {
  ensureEngine().then(
    (engine) => {
      process.stdout.write(`${engine.binDir}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
