#!/usr/bin/env node
/**
 * `npm run build:sdks`: the SDKs for Python, Go and .NET, generated from `provider/schema.json` into
 * `sdk/python`, `sdk/go` and `sdk/dotnet` (build output, git-ignored; docs/plugin.md#sdks-for-python-go-and-net).
 *
 * The generator is the project's own Go program, `scripts/release/sdk-gen`, over Pulumi's code generators.
 * It is built twice: against the Pulumi release of the CLI (`go.mod`) for Python and Go, and against
 * the last release that ships the .NET generator (`go.dotnet.mod`) for .NET. The executables go to
 * `dist/tools/`; Go's build cache makes a rebuild take seconds.
 */
import { execFile } from "node:child_process";
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

import { type ProgressLog, step, toStderr } from "../support/progress";
import { PLUGIN_SCHEMA_FILE } from "../support/schema-file";
import { REPOSITORY_ROOT } from "../support/user-project";

const run = promisify(execFile);

const GENERATOR_SOURCES = join(REPOSITORY_ROOT, "scripts", "release", "sdk-gen");

/**
 * The two builds of the generator (see the file comment): executable name, `go build` flags and the
 * SDKs it writes, as progress names them.
 */
const GENERATOR_BUILDS = [
  { name: "sdk-gen", flags: [], sdks: "Python and Go SDKs" },
  { name: "sdk-gen-dotnet", flags: ["-modfile=go.dotnet.mod", "-tags", "dotnet"], sdks: ".NET SDK" },
] as const;

/** What {@link generateSdks} writes. */
interface SdkOptions {
  /** The folder receiving `python/`, `go/` and `dotnet/`, each replaced whole. */
  outDir: string;
  /** Where the generator's executables are built. */
  toolsDir: string;
  /** The version stamped into the SDKs; defaults to package.json's. */
  version?: string;
  /** Where each step's start and duration go; nowhere unless given. */
  log?: ProgressLog;
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
export async function buildGenerators(
  toolsDir: string,
  log: ProgressLog = () => undefined,
): Promise<string[]> {
  await mkdir(toolsDir, { recursive: true });
  // Static like the CLI's build; read-only so a build never rewrites the committed go.mod or go.sum.
  const env = { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -buildvcs=false" };
  const paths: string[] = [];
  for (const build of GENERATOR_BUILDS) {
    const output = join(toolsDir, build.name);
    await step(log, `Building the generator of the ${build.sdks} (go build, minutes the first time)`, () =>
      run("go", ["build", ...build.flags, "-o", output, "."], {
        cwd: GENERATOR_SOURCES,
        env,
        timeout: 600_000, // 10 min: the first build downloads Pulumi's modules
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
        throw new Error(
          "Go is needed to build the SDK generator (scripts/release/sdk-gen): install it from https://go.dev/dl/",
        );
      }),
    );
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
  const log = options.log ?? (() => undefined);
  const version = options.version ?? (await packageVersion());
  const generators = await buildGenerators(options.toolsDir, log);
  const args = [
    "-schema",
    join(REPOSITORY_ROOT, PLUGIN_SCHEMA_FILE),
    "-version",
    version,
    "-out",
    options.outDir,
  ];
  // One after the other: each takes well under a second, and progress stays one step at a time.
  const reports: string[] = [];
  for (const [i, generator] of generators.entries()) {
    const { sdks } = GENERATOR_BUILDS[i]!;
    const { stdout } = await step(log, `Generating the ${sdks} into ${options.outDir}`, () =>
      run(generator, args),
    );
    reports.push(stdout);
  }
  await appendFile(join(options.outDir, "dotnet", "README.md"), DOTNET_NOTE);
  return reports.join("");
}

if (require.main === module) {
  generateSdks({ ...CHECKOUT_SDKS, log: toStderr }).then(
    (report) => process.stdout.write(report),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
