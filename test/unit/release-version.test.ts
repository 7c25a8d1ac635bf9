/**
 * One version and one repository for a release. package.json's `version` is the only one written by
 * hand: the plugin and the SDKs take it from there when they are built, the schema names none (the
 * plugin stamps its own, and the download URL leaves `${VERSION}` to the engine), and every file that
 * names it again says the same: the server's package, the examples' and the lockfiles' entries of
 * this project's packages, the Go example's requirement of the SDK, and the install lines and tarball names of the
 * READMEs and docs. package.json and the schema name the same repository, where the plugin is
 * downloaded from.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

import { describe, expect, it } from "vitest";

import { pulumiSchema } from "../../provider/plugin/schema";
import { PLUGIN_DOWNLOAD_URL, REPOSITORY_URL } from "../../provider/tokens";
import { pluginTarball } from "../../scripts/release/build-plugin";
import { PINNED_NPM_PROJECTS, REPOSITORY_ROOT } from "../../scripts/support/user-project";

const read = (path: string): string => readFileSync(join(REPOSITORY_ROOT, path), "utf8");

interface Manifest {
  version: string;
  homepage?: string;
  repository?: { type: string; url: string };
  bugs?: { url: string };
}
const manifest = JSON.parse(read("package.json")) as Manifest;
const { version } = manifest;

/** A lockfile's entry of one of this project's npm packages, nested or not, installed from the checkout. */
const OWN_PACKAGE = /(^|\/)node_modules\/(pulumi-notification-handlers|notification-handlers-server)$/;

/** Where a Markdown page names this project's version: after each of these, when a digit follows. */
const VERSION_CONTEXTS = [
  /pulumi plugin install resource notification-handlers v?/g,
  // The tarball (`pulumi-resource-notification-handlers-v0.2.0-linux-amd64.tar.gz`) and the folder the
  // engine installs it into (`plugins/resource-notification-handlers-v0.2.0/`).
  /\bresource-notification-handlers-v/g,
  /notification-handlers\/pulumi-notification-handlers\/releases\/download\/v/g,
  // `pulumi plugin run --kind resource notification-handlers@0.2.0`.
  /--kind resource notification-handlers@/g,
  // A Pulumi YAML resource's `version` option.
  /^\s+version: /gm,
];

/** The Markdown pages users read: the README, docs/ and each example's README. */
function markdownPages(): string[] {
  const docs = readdirSync(join(REPOSITORY_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  const examples = readdirSync(join(REPOSITORY_ROOT, "examples"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `examples/${entry.name}/README.md`);
  return ["README.md", ...docs, ...examples];
}

/** How many versions a page names in those places, and `file:line: version` of each that is not package.json's. */
function versionsNamed(path: string): { named: number; wrong: string[] } {
  const text = read(path);
  let named = 0;
  const wrong: string[] = [];
  for (const context of VERSION_CONTEXTS) {
    for (const match of text.matchAll(context)) {
      const at = match.index + match[0].length;
      // `<version>`, `${VERSION}`: a placeholder, not a version.
      if (!/\d/.test(text.charAt(at))) continue;
      named += 1;
      const rest = text.slice(at);
      // The version, and not the start of a longer one (0.2.0 in 0.2.01).
      if (rest.startsWith(version) && !/[\d.]/.test(rest.charAt(version.length))) continue;
      const line = text.slice(0, at).split("\n").length;
      wrong.push(`${path}:${line}: ${/^[\d.]+/.exec(rest)?.[0] ?? ""}`);
    }
  }
  return { named, wrong: wrong.sort((a, b) => a.localeCompare(b, "en", { numeric: true })) };
}

describe("the release's version, package.json's", () => {
  it("is the server package's and the ready policy pack's", () => {
    expect((JSON.parse(read("server/package.json")) as Manifest).version).toBe(version);
    expect((JSON.parse(read("policy-pack/package.json")) as Manifest).version).toBe(version);
  });

  it("is what the repository's lockfile records for both packages", () => {
    const lock = JSON.parse(read("package-lock.json")) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect(lock.version).toBe(version);
    expect(lock.packages[""]?.version).toBe(version);
    expect(lock.packages["server"]?.version).toBe(version);
  });

  it.each(PINNED_NPM_PROJECTS)("is what %s names and pins of this project's packages", (folder) => {
    const lock = JSON.parse(read(`${folder}/package-lock.json`)) as {
      packages: Record<string, { version?: string; resolved?: string }>;
    };
    // From the checkout (`file:`), or from the registry by version alone (a template's).
    const own = Object.entries(lock.packages).filter(
      ([name, entry]) =>
        OWN_PACKAGE.test(name) && (entry.resolved === undefined || entry.resolved.startsWith("file:")),
    );
    expect(own.length, "an entry of this project's packages").toBeGreaterThan(0);
    for (const [name, entry] of own) expect(entry.version, `${name} (npm run pins:update)`).toBe(version);
    // What package.json names: the release's version, or a path into the checkout (a fixture's).
    const named = JSON.parse(read(`${folder}/package.json`)) as Record<string, Record<string, string>>;
    for (const [name, spec] of Object.entries({ ...named.dependencies, ...named.devDependencies }))
      if (OWN_PACKAGE.test(`node_modules/${name}`) && !spec.startsWith("file:"))
        expect(spec, `${folder}/package.json's ${name}`).toBe(version);
  });

  it.each(["examples/go", "templates/go"])("is the version of the SDK %s requires", (folder) => {
    expect(read(`${folder}/go.mod`)).toMatch(
      new RegExp(
        `^\\s*github\\.com/notification-handlers/pulumi-notification-handlers/sdk/go v${version}$`,
        "m",
      ),
    );
  });

  it("is what each template installs: the npm package, the Python SDK, the plugin of a YAML program", () => {
    const npm = JSON.parse(read("templates/typescript/package.json")) as {
      dependencies: Record<string, string>;
    };
    expect(npm.dependencies["pulumi-notification-handlers"]).toBe(version);
    expect(read("templates/python/requirements.txt")).toMatch(
      new RegExp(`^pulumi-notification-handlers==${version.replaceAll(".", "\\.")}$`, "m"),
    );
    const yaml = read("templates/yaml/Pulumi.yaml");
    const versions = [...yaml.matchAll(/^\s+version: (\S+)$/gm)].map((m) => m[1]);
    const urls = [...yaml.matchAll(/^\s+pluginDownloadURL: (\S+)$/gm)].map((m) => m[1]);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set([version]));
    expect(new Set(urls)).toEqual(new Set([PLUGIN_DOWNLOAD_URL.replace("${VERSION}", version)]));
  });

  it("is every version the READMEs and docs install or name a tarball by", () => {
    const pages = markdownPages();
    const results = pages.map((path) => ({ path, ...versionsNamed(path) }));
    expect(results.flatMap((r) => r.wrong)).toEqual([]);
    // The patterns still find the install lines: each of these pages has some.
    const naming = results.filter((r) => r.named > 0).map((r) => r.path);
    expect(naming).toEqual(
      expect.arrayContaining([
        "README.md",
        "docs/plugin.md",
        "examples/go/README.md",
        "examples/python/README.md",
        "examples/yaml-program/README.md",
      ]),
    );
  });

  it("names the plugin's tarball", () => {
    expect(basename(pluginTarball())).toMatch(
      new RegExp(
        `^pulumi-resource-notification-handlers-v${version.replaceAll(".", "\\.")}-\\w+-\\w+\\.tar\\.gz$`,
      ),
    );
  });

  it("is named nowhere in the schema: the plugin stamps it, the SDKs are generated with it", () => {
    const schema = pulumiSchema();
    expect(schema).not.toHaveProperty("version");
    expect(schema.pluginDownloadURL).toMatch(/\/download\/v\$\{VERSION\}$/);
  });
});

describe("the release's repository", () => {
  it("is package.json's repository, home page and issue tracker", () => {
    expect(manifest.repository).toEqual({ type: "git", url: `git+${REPOSITORY_URL}.git` });
    expect(manifest.homepage).toBe(`${REPOSITORY_URL}#readme`);
    expect(manifest.bugs).toEqual({ url: `${REPOSITORY_URL}/issues` });
  });

  it("is the schema's, and the plugin is downloaded from its releases", () => {
    const schema = pulumiSchema();
    expect(schema.repository).toBe(REPOSITORY_URL);
    expect(schema.homepage).toBe(REPOSITORY_URL);
    expect(schema.pluginDownloadURL).toBe(PLUGIN_DOWNLOAD_URL);
    // A GitHub release's assets, by a plain https URL the engine fills `${VERSION}` into: no API call.
    expect(PLUGIN_DOWNLOAD_URL).toBe(`${REPOSITORY_URL}/releases/download/v\${VERSION}`);
    const go = schema.language["go"] as { importBasePath: string };
    expect(`https://${go.importBasePath}`.startsWith(`${REPOSITORY_URL}/`)).toBe(true);
  });
});
