/**
 * The install lines users copy from README.md, docs/installation-configuration.md and docs/plugin.md
 * name what a release publishes: package.json's version, the npm package's name, the Python SDK's
 * distribution and import names, the Go SDK's module and import paths (provider/schema.json's Go
 * section), and the plugin's download URL of provider/tokens.ts. The installation page also lists
 * every setting as the table of settings has it, and neither it nor the README's quickstart sends
 * users to a clone.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { NPM_PACKAGE, PLUGIN_DOWNLOAD_URL, REPOSITORY_URL } from "../../provider/tokens";
import { YAML_HOST_VERSION } from "../../scripts/engine/engine";
import { GO_MODULE, PYTHON_DISTRIBUTION, dotnetZipName } from "../../scripts/release/release";
import { REPOSITORY_ROOT } from "../../scripts/support/user-project";

const read = (path: string): string => readFileSync(join(REPOSITORY_ROOT, path), "utf8");

const manifest = JSON.parse(read("package.json")) as { name: string; version: string };
const { version } = manifest;
const serverPackage = (JSON.parse(read("server/package.json")) as { name: string }).name;

const schema = JSON.parse(read("provider/schema.json")) as {
  pluginDownloadURL: string;
  language: { go: { importBasePath: string }; python: { packageName: string } };
};
/** The Go SDK's package, and the module it is in: sdk/go, the package one folder below. */
const goImportPath = schema.language.go.importBasePath;
const goModule = goImportPath.slice(0, goImportPath.lastIndexOf("/"));
const pythonImport = schema.language.python.packageName;

/** A Python distribution's name as PyPI compares names (PEP 503): `pulumi_x` is `pulumi-x`. */
const pypiName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, "-");

/** The download URL of this version's release, `${VERSION}` filled in as the engine fills it. */
const releaseUrl = PLUGIN_DOWNLOAD_URL.replace("${VERSION}", version);

const INSTALLATION_PAGE = "docs/installation-configuration.md";
const PAGES = ["README.md", INSTALLATION_PAGE, "docs/plugin.md"];

interface Command {
  path: string;
  line: number;
  /** The command's words up to a comment, continuation lines joined. */
  words: string[];
}

/** The command that starts at `index`: to the end of its line (a `\` continues it) or of its code span. */
function commandAt(text: string, index: number): string {
  let end = index;
  while (end < text.length && text[end] !== "`" && !(text[end] === "\n" && text[end - 1] !== "\\")) end++;
  return text.slice(index, end).replace(/\\\n/g, " ");
}

/** Every command of `path` that starts with `start` (`pip install`, ...). */
function commands(path: string, start: string): Command[] {
  const text = read(path);
  const found: Command[] = [];
  for (let at = text.indexOf(start); at !== -1; at = text.indexOf(start, at + start.length)) {
    const words = commandAt(text, at).trim().split(/\s+/);
    const comment = words.indexOf("#");
    found.push({
      path,
      line: text.slice(0, at).split("\n").length,
      words: comment === -1 ? words : words.slice(0, comment),
    });
  }
  return found;
}

const where = (command: Command): string => `${command.path}:${command.line}: ${command.words.join(" ")}`;

/** The arguments after the command's first `skip` words, options left out. */
const argumentsOf = (command: Command, skip: number): string[] =>
  command.words.slice(skip).filter((word) => !word.startsWith("-"));

/** `file:line: command` of each `npm install` of this project's packages not at package.json's version. */
function wrongNpmLines(path: string): { found: number; wrong: string[] } {
  let found = 0;
  const wrong: string[] = [];
  for (const command of commands(path, "npm install ")) {
    for (const spec of argumentsOf(command, 2).filter((arg) => arg.includes("notification"))) {
      found += 1;
      const [name, pinned] = spec.split(/(?<=.)@/, 2);
      // The provider's package is pinned; the server's may be left to npm's latest.
      const right =
        (name === NPM_PACKAGE && pinned === version) ||
        (name === serverPackage && (pinned === undefined || pinned === version));
      if (!right) wrong.push(where(command));
    }
  }
  return { found, wrong };
}

/** The same for `pip install` of the Python SDK: its PyPI name, pinned to the version. */
function wrongPipLines(path: string): { found: number; wrong: string[] } {
  let found = 0;
  const wrong: string[] = [];
  for (const command of commands(path, "pip install ")) {
    for (const spec of argumentsOf(command, 2).filter((arg) => /notification/i.test(arg))) {
      found += 1;
      const [, name = "", pin = ""] = /^([\w.-]+)(.*)$/.exec(spec) ?? [];
      if (pypiName(name) !== pypiName(PYTHON_DISTRIBUTION) || pin !== `==${version}`)
        wrong.push(where(command));
    }
  }
  return { found, wrong };
}

/** The same for `go get` of the Go SDK: its module, at the version's tag. */
function wrongGoGetLines(path: string): { found: number; wrong: string[] } {
  let found = 0;
  const wrong: string[] = [];
  for (const command of commands(path, "go get ")) {
    for (const spec of argumentsOf(command, 2).filter((arg) => arg.includes("notification"))) {
      found += 1;
      if (spec !== `${goModule}@v${version}`) wrong.push(where(command));
    }
  }
  return { found, wrong };
}

/** The same for `pulumi plugin install resource notification-handlers`: the version, from the release. */
function wrongPluginInstallLines(path: string): { found: number; wrong: string[] } {
  let found = 0;
  const wrong: string[] = [];
  for (const command of commands(path, "pulumi plugin install resource notification-handlers ")) {
    const server = command.words.indexOf("--server");
    if (server === -1) continue; // `--file`, from a clone: docs/development.md's
    found += 1;
    if (command.words[5] !== version || command.words[server + 1] !== releaseUrl) wrong.push(where(command));
  }
  return { found, wrong };
}

/** `file:line: text` of each match of `pattern` in `path` for which `right` says no, and how many matched. */
function check(
  path: string,
  pattern: RegExp,
  right: (match: RegExpExecArray) => boolean,
): { found: number; wrong: string[] } {
  const text = read(path);
  let found = 0;
  const wrong: string[] = [];
  for (const match of text.matchAll(pattern)) {
    found += 1;
    if (!right(match)) wrong.push(`${path}:${text.slice(0, match.index).split("\n").length}: ${match[0]}`);
  }
  return { found, wrong };
}

/** A YAML program's `pluginDownloadURL` option: this version's release, as its SDKs name it. */
const pluginDownloadUrlOptions = (path: string): { found: number; wrong: string[] } =>
  check(path, /pluginDownloadURL: (\S+)/g, (m) => m[1] === releaseUrl);

/** A link or address of the release's assets: this version's release, or the URL's own `${VERSION}`. */
const releaseAddresses = (path: string): { found: number; wrong: string[] } =>
  check(path, new RegExp(`${REPOSITORY_URL.replaceAll(".", "\\.")}/releases/download/[^\\s\`)]*`, "g"), (m) =>
    [releaseUrl, PLUGIN_DOWNLOAD_URL].some((base) => m[0] === base || m[0].startsWith(`${base}/`)),
  );

/** Go imports of the SDK: the schema's import path. */
const goImports = (path: string): { found: number; wrong: string[] } =>
  check(path, /"(github\.com\/notification-handlers\/[^"]*)"/g, (m) => m[1] === goImportPath);

/** Python imports of the SDK: the schema's package name. */
const pythonImports = (path: string): { found: number; wrong: string[] } =>
  check(path, /\b(?:import|from) (pulumi_\w*)/g, (m) => m[1] === pythonImport);

const CHECKS = {
  "npm install": wrongNpmLines,
  "pip install": wrongPipLines,
  "go get": wrongGoGetLines,
  "pulumi plugin install --server": wrongPluginInstallLines,
  pluginDownloadURL: pluginDownloadUrlOptions,
  "release addresses": releaseAddresses,
  "Go imports": goImports,
  "Python imports": pythonImports,
};

/** README.md's section `heading`, to the next section. */
function readmeSection(heading: string): string {
  const readme = read("README.md");
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README.md's section "${heading}"`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

describe("the names the install lines must use", () => {
  it("agree with each other where they are defined twice", () => {
    expect(manifest.name).toBe(NPM_PACKAGE);
    expect(goModule).toBe(GO_MODULE);
    expect(pypiName(pythonImport)).toBe(pypiName(PYTHON_DISTRIBUTION));
    expect(schema.pluginDownloadURL).toBe(PLUGIN_DOWNLOAD_URL);
    expect(releaseUrl).toBe(`${REPOSITORY_URL}/releases/download/v${version}`);
  });
});

describe.each(PAGES)("%s's install lines", (path) => {
  it.each(Object.keys(CHECKS) as (keyof typeof CHECKS)[])("%s: the release's names and version", (kind) => {
    expect(CHECKS[kind](path).wrong).toEqual([]);
  });
});

describe("what the README and the installation page install", () => {
  const expected: Record<string, (keyof typeof CHECKS)[]> = {
    "README.md": ["npm install", "pip install", "go get", "pluginDownloadURL", "release addresses"],
    [INSTALLATION_PAGE]: Object.keys(CHECKS) as (keyof typeof CHECKS)[],
  };

  it.each(Object.keys(expected))("%s shows each language's install line", (path) => {
    const missing = (expected[path] ?? []).filter((kind) => CHECKS[kind](path).found === 0);
    expect(missing, "kinds of install line not found").toEqual([]);
  });

  it("the README's quickstart shows the lines of Python, Go and TypeScript", () => {
    const section = readmeSection("Using the provider");
    expect(section).toContain(`pip install ${pypiName(PYTHON_DISTRIBUTION)}==${version}`);
    expect(section).toContain(`go get ${goModule}@v${version}`);
    expect(section).toContain(`npm install ${NPM_PACKAGE}@${version}`);
    expect(section).toContain(`pluginDownloadURL: ${releaseUrl}`);
  });

  it.each([
    ["README.md's quickstart", (): string => readmeSection("Using the provider")],
    [INSTALLATION_PAGE, (): string => read(INSTALLATION_PAGE)],
  ])("%s sends nobody to a clone", (_, text) => {
    expect(text()).not.toMatch(/npm run build|--file\b|\bclone\b/);
  });

  it("the installation page links the .NET SDK's sources in this version's release", () => {
    expect(read(INSTALLATION_PAGE)).toContain(`(${releaseUrl}/${dotnetZipName(version)})`);
  });

  it("the installation page's versions are the npm package's range and the engine the tests run", () => {
    const { peerDependencies, engines } = JSON.parse(read("package.json")) as {
      peerDependencies: Record<string, string>;
      engines: Record<string, string>;
    };
    const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version: string }> };
    const cli = lock.packages["node_modules/@pulumi/pulumi"]?.version;
    const rows = /### Versions that go together\n([\s\S]*?)\n### /.exec(read(INSTALLATION_PAGE))?.[1] ?? "";
    expect(rows).toContain(
      `| \`${peerDependencies["@pulumi/pulumi"]}\` (the peer range), on Node.js ${engines.node?.replace(">=", "")} or later |`,
    );
    expect(rows).toContain(`| ${cli}, with Pulumi YAML's language host ${YAML_HOST_VERSION} |`);
  });

  it("the installation page has the front matter of a Pulumi Registry page", () => {
    const frontMatter = /^---\n([\s\S]*?)\n---\n/.exec(read(INSTALLATION_PAGE))?.[1] ?? "";
    expect(frontMatter).toMatch(/^title: .+ Installation & Configuration$/m);
    expect(frontMatter).toMatch(/^meta_desc: .+$/m);
    expect(frontMatter).toMatch(/^layout: package$/m);
  });
});
