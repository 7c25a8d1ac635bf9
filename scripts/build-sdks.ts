#!/usr/bin/env node
/**
 * `npm run build:sdks`: the SDKs for Python, Go and .NET, generated from `provider/schema.json` into
 * `sdk/python`, `sdk/go` and `sdk/dotnet` (build output, git-ignored; docs/plugin.md#sdks-for-python-go-and-net).
 *
 * The generator is the project's own Go program, `scripts/sdk-gen`, over Pulumi's code generators.
 * It is built twice: against the Pulumi release of the CLI (`go.mod`) for Python and Go, and against
 * the last release that ships the .NET generator (`go.dotnet.mod`) for .NET. The executables go to
 * `dist/tools/`; Go's build cache makes a rebuild take seconds.
 */
import { execFile } from "node:child_process";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

import { SCHEMA_FILE } from "./pulumi-schema";
import { REPOSITORY_ROOT } from "./user-project";

const run = promisify(execFile);

const GENERATOR_SOURCES = join(REPOSITORY_ROOT, "scripts", "sdk-gen");

/** The two builds of the generator (see the file comment): executable name and `go build` flags. */
const GENERATOR_BUILDS = [
  { name: "sdk-gen", flags: [] },
  { name: "sdk-gen-dotnet", flags: ["-modfile=go.dotnet.mod", "-tags", "dotnet"] },
] as const;

/** What {@link generateSdks} writes. */
interface SdkOptions {
  /** The folder receiving `python/`, `go/` and `dotnet/`, each replaced whole. */
  outDir: string;
  /** Where the generator's executables are built. */
  toolsDir: string;
  /** The version stamped into the SDKs; defaults to package.json's. */
  version?: string;
}

// Not compiled by the build, and the generated README does not say so.
const DOTNET_NOTE = `
## Building this SDK

\`npm run build:sdks\` generates this SDK but does not compile it: compiling needs the .NET SDK and
NuGet (for the \`Pulumi\` package), and the machine the project is developed on has neither. Run
\`dotnet build\` in this folder where both are available.
`;

async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Builds the generator's executables into `toolsDir` and returns their paths, in build order. */
export async function buildGenerators(toolsDir: string): Promise<string[]> {
  await mkdir(toolsDir, { recursive: true });
  // Static like the CLI's build; read-only so a build never rewrites the committed go.mod or go.sum.
  const env = { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -buildvcs=false" };
  const paths: string[] = [];
  for (const build of GENERATOR_BUILDS) {
    const output = join(toolsDir, build.name);
    await run("go", ["build", ...build.flags, "-o", output, "."], {
      cwd: GENERATOR_SOURCES,
      env,
      timeout: 600_000, // 10 min: the first build downloads Pulumi's modules
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
      throw new Error(
        "Go is needed to build the SDK generator (scripts/sdk-gen): install it from https://go.dev/dl/",
      );
    });
    paths.push(output);
  }
  return paths;
}

/** Where `npm run build:sdks` writes: the checkout's `sdk/`, the generator in `dist/tools/`. */
export const CHECKOUT_SDKS: SdkOptions = {
  outDir: join(REPOSITORY_ROOT, "sdk"),
  toolsDir: join(REPOSITORY_ROOT, "dist", "tools"),
};

/** Builds the generator and writes every SDK (see the file comment); returns the generator's report. */
export async function generateSdks(options: SdkOptions = CHECKOUT_SDKS): Promise<string> {
  const version = options.version ?? (await packageVersion());
  const generators = await buildGenerators(options.toolsDir);
  const args = ["-schema", join(REPOSITORY_ROOT, SCHEMA_FILE), "-version", version, "-out", options.outDir];
  const reports = await Promise.all(generators.map((generator) => run(generator, args)));
  await appendFile(join(options.outDir, "dotnet", "README.md"), DOTNET_NOTE);
  return reports.map((report) => report.stdout).join("");
}

if (require.main === module) {
  generateSdks().then(
    (report) => process.stdout.write(report),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
