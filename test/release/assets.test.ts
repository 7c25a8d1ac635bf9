/**
 * `npm run release:check`: the release `npm run release` wrote for package.json's version
 * (`dist/release/v<version>/`), proved file by file as the engine, a package manager or a person
 * meets it (docs/releasing.md#checking-a-release). It reads the release and never builds it: that
 * takes minutes, so `npm test` and CI leave these tests out.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, relative, sep } from "node:path";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PLUGIN_EXECUTABLE, pluginDownloadUrl } from "../../provider/tokens";
import {
  CHECKSUMS_FILE,
  packageVersion,
  pluginTarballName,
  sha256File,
} from "../../scripts/release/build-plugin";
import { GO_MODULE, PYTHON_DISTRIBUTION, dotnetZipName, releaseFolder } from "../../scripts/release/release";
import {
  describeExecutable,
  inspectExecutable,
  peChecksum,
  withPeChecksum,
} from "../../scripts/release/formats";
import {
  RELEASE_TARGETS,
  type ReleaseTarget,
  executableName,
  platformOf,
} from "../../scripts/release/targets";
import { RELEASE_CACHE, ensurePythonTools } from "../../scripts/release/tools";
import { PACKAGES, REPOSITORY_ROOT } from "../../scripts/support/user-project";

const run = promisify(execFile);
const BIG = { maxBuffer: 64 * 1024 * 1024 };

const version = packageVersion();
const folder = releaseFolder(version);

/** The plugin file every SDK carries: it names the plugin's version and where to download it. */
const PLUGIN_FILE = {
  resource: true,
  name: "notification-handlers",
  version,
  server: pluginDownloadUrl(version),
};

let scratch: string;
beforeAll(async () => {
  if (!existsSync(join(folder, CHECKSUMS_FILE)))
    throw new Error(`no release in ${relative(REPOSITORY_ROOT, folder)}: run \`npm run release\` first`);
  scratch = await mkdtemp(join(tmpdir(), "release-check-"));
});
afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** Every file of the release but checksums.txt, relative to its folder with `/` separators. */
async function releaseFiles(): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .filter((file) => file !== CHECKSUMS_FILE)
    .sort();
}

/** A target's tarball, listed and unpacked once into the scratch folder. */
const unpacked = new Map<string, Promise<{ entries: string[]; executable: string }>>();
function unpack(target: ReleaseTarget): Promise<{ entries: string[]; executable: string }> {
  const platform = platformOf(target);
  let found = unpacked.get(platform);
  if (found === undefined) {
    found = (async () => {
      const tarball = join(folder, pluginTarballName(version, platform));
      const { stdout } = await run("tar", ["-tzf", tarball]);
      const into = join(scratch, platform);
      await mkdir(into, { recursive: true });
      await run("tar", ["-xzf", tarball, "-C", into]);
      return {
        entries: stdout.split("\n").filter((line) => line !== ""),
        executable: join(into, executableName(target, PLUGIN_EXECUTABLE)),
      };
    })();
    unpacked.set(platform, found);
  }
  return found;
}

/** The first `command` on PATH. */
function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

describe("checksums.txt", () => {
  it("names every other file of the release once, a `<sha256>  <path>` line each", async () => {
    const lines = (await readFile(join(folder, CHECKSUMS_FILE), "utf8")).trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(/^[0-9a-f]{64} {2}\S+$/);
    expect(lines.map((line) => line.slice(66))).toEqual(await releaseFiles());
  });

  it("holds each file's SHA-256, as `sha256sum --check` finds them", async () => {
    const lines = (await readFile(join(folder, CHECKSUMS_FILE), "utf8")).trimEnd().split("\n");
    for (const line of lines)
      expect(await sha256File(join(folder, line.slice(66))), line).toBe(line.slice(0, 64));
    await run("sha256sum", ["--check", "--strict", "--quiet", CHECKSUMS_FILE], { cwd: folder });
  });
});

describe.each(RELEASE_TARGETS.map((target) => [platformOf(target), target] as const))(
  "the plugin for %s",
  (_platform, target) => {
    const name = executableName(target, PLUGIN_EXECUTABLE);

    it(`is a tarball named as the engine asks, holding its one executable, ${name}`, async () => {
      const { entries, executable } = await unpack(target);
      expect(entries).toEqual([name]);
      const { mode } = await stat(executable);
      expect(mode & 0o111, "executable bits").toBe(0o111);
    });

    it(`is ${describeExecutable(target)}, with the plugin injected as a single-executable blob`, async () => {
      const info = inspectExecutable(await readFile((await unpack(target)).executable));
      expect(describeExecutable(info)).toBe(describeExecutable(target));
      expect(info.seaInjected, "the single-executable fuse blown").toBe(true);
      if (target.format === "Mach-O") expect(info.segments).toContain("NODE_SEA");
    });

    if (target.format === "Mach-O")
      it("is signed ad hoc (LC_CODE_SIGNATURE), every page hash matching, the signature in __LINKEDIT", async () => {
        const info = inspectExecutable(await readFile((await unpack(target)).executable));
        expect(info.codeSignature).toMatchObject({
          adHoc: true,
          identifier: PLUGIN_EXECUTABLE,
          hashType: "sha256",
          matches: true,
          inLinkedit: true,
        });
      });

    if (target.format === "PE")
      it("holds no Authenticode signature that the blob would have broken, and a right checksum", async () => {
        const bytes = await readFile((await unpack(target)).executable);
        expect(inspectExecutable(bytes).authenticode).toBe(false);
        expect(peChecksum(bytes)).toBe(peChecksum(withPeChecksum(bytes)));
      });

    if ("sameAs" in target)
      it(`is the ${target.sameAs} executable, as docs/releasing.md#darwin-arm64 decides`, async () => {
        const other = RELEASE_TARGETS.find((candidate) => platformOf(candidate) === target.sameAs)!;
        const [mine, theirs] = await Promise.all([unpack(target), unpack(other)]);
        expect((await readFile(mine.executable)).equals(await readFile(theirs.executable))).toBe(true);
      });
  },
);

describe("the executables answer `version` with the release's", () => {
  const target = (platform: string): ReleaseTarget =>
    RELEASE_TARGETS.find((candidate) => platformOf(candidate) === platform)!;

  it("linux-amd64, run here", async () => {
    const { stdout } = await run((await unpack(target("linux-amd64"))).executable, ["version"]);
    expect(stdout).toBe(`${version}\n`);
  });

  it("linux-arm64, under qemu-aarch64-static", async () => {
    const qemu = onPath("qemu-aarch64-static");
    const libraries = "/usr/aarch64-linux-gnu";
    if (qemu === undefined || !existsSync(join(libraries, "lib", "libstdc++.so.6")))
      throw new Error(
        "running the linux-arm64 executable needs qemu-aarch64-static and an arm64 C and C++ runtime: " +
          "apt-get install qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross",
      );
    const { stdout } = await run(qemu, [(await unpack(target("linux-arm64"))).executable, "version"], {
      env: { ...process.env, QEMU_LD_PREFIX: libraries },
    });
    expect(stdout).toBe(`${version}\n`);
  });
});

describe("the packages", () => {
  it("npm: the provider's and the server's, as `npm pack` names them, of this version", async () => {
    for (const name of Object.keys(PACKAGES)) {
      const tarball = join(folder, `${name}-${version}.tgz`);
      const { stdout } = await run("tar", ["-xzOf", tarball, "package/package.json"]);
      expect(JSON.parse(stdout) as unknown, name).toMatchObject({ name, version });
    }
  });

  it("Python: a wheel and an sdist built from a pyproject.toml, naming the plugin of their version", async () => {
    const wheel = join(folder, `${PYTHON_DISTRIBUTION}-${version}-py3-none-any.whl`);
    const sdist = join(folder, `${PYTHON_DISTRIBUTION}-${version}.tar.gz`);
    const inWheel = await run("unzip", ["-p", wheel, `${PYTHON_DISTRIBUTION}/pulumi-plugin.json`]);
    expect(JSON.parse(inWheel.stdout)).toEqual(PLUGIN_FILE);
    const root = `${PYTHON_DISTRIBUTION}-${version}`;
    const inSdist = await run("tar", ["-xzOf", sdist, `${root}/${PYTHON_DISTRIBUTION}/pulumi-plugin.json`]);
    expect(JSON.parse(inSdist.stdout)).toEqual(PLUGIN_FILE);
    const pyproject = await run("tar", ["-xzOf", sdist, `${root}/pyproject.toml`]);
    expect(pyproject.stdout).toMatch(/build-backend = "setuptools\.build_meta"/);
  });

  it("Python: both clean under `twine check --strict`", async () => {
    const python = await ensurePythonTools(() => undefined);
    const files = [
      `${PYTHON_DISTRIBUTION}-${version}-py3-none-any.whl`,
      `${PYTHON_DISTRIBUTION}-${version}.tar.gz`,
    ];
    const { stdout } = await run(python, ["-m", "twine", "check", "--strict", ...files], { cwd: folder });
    expect(stdout.match(/PASSED/g)).toHaveLength(2);
  });

  it("Go: `go get` takes the module from goproxy/ with no replace, and a program builds with it", async () => {
    const project = join(scratch, "go-program");
    await mkdir(project, { recursive: true });
    const { stdout: userCache } = await run("go", ["env", "GOMODCACHE"]);
    // A module cache of the check's own, kept between checks so that Go's build cache, whose keys
    // hold the sources' paths, spares compiling Pulumi's SDK again; without the release's module, so
    // that nothing a former check left answers for this release.
    const moduleCache = join(RELEASE_CACHE, "go-check-mod-cache");
    for (const place of [moduleCache, join(moduleCache, "cache", "download")])
      await rm(join(place, ...GO_MODULE.split("/").slice(0, 2)), { recursive: true, force: true });
    const env = {
      ...process.env,
      GOMODCACHE: moduleCache,
      // The release's folder first; the user's cache serves the rest (a module cache's download
      // folder is laid out as a proxy), the Go module proxy what neither has.
      GOPROXY: [
        `file://${join(folder, "goproxy")}`,
        `file://${join(userCache.trim(), "cache", "download")}`,
        "https://proxy.golang.org",
      ].join(","),
      GONOSUMDB: GO_MODULE,
      // Writable, so that the line above can remove the release's module.
      GOFLAGS: "-mod=mod -modcacherw",
    };
    await run("go", ["mod", "init", "example.com/release-check"], { cwd: project, env });
    await writeFile(
      join(project, "main.go"),
      [
        "package main",
        "",
        'import "fmt"',
        "",
        `import notificationhandlers "${GO_MODULE}/notificationhandlers"`,
        "",
        "func main() { fmt.Println(notificationhandlers.HandlerTypeEmail) }",
        "",
      ].join("\n"),
    );
    await run("go", ["get", `${GO_MODULE}@v${version}`], { cwd: project, env, ...BIG });
    const goMod = await readFile(join(project, "go.mod"), "utf8");
    expect(goMod).toContain(`${GO_MODULE} v${version}`);
    expect(goMod).not.toMatch(/^replace/m);
    // The zip the go command took is the release's, byte for byte.
    const { stdout: download } = await run("go", ["mod", "download", "-json", `${GO_MODULE}@v${version}`], {
      cwd: project,
      env,
    });
    const { Zip: taken } = JSON.parse(download) as { Zip: string };
    const released = join(folder, "goproxy", ...GO_MODULE.split("/"), "@v", `v${version}.zip`);
    expect(await sha256File(taken)).toBe(await sha256File(released));
    await run("go", ["build", "-o", "program", "."], { cwd: project, env, ...BIG });
    const { stdout } = await run(join(project, "program"), []);
    expect(stdout).toBe("email\n");
  });

  it(".NET: the generated sources zipped, naming the plugin of their version", async () => {
    const zip = join(folder, dotnetZipName(version));
    const root = dotnetZipName(version).replace(/\.zip$/, "");
    const { stdout: names } = await run("unzip", ["-Z1", zip]);
    expect(names.split("\n")).toContain(`${root}/NotificationHandlers.NotificationHandlers.csproj`);
    const plugin = await run("unzip", ["-p", zip, `${root}/pulumi-plugin.json`]);
    expect(JSON.parse(plugin.stdout)).toEqual(PLUGIN_FILE);
  });
});
