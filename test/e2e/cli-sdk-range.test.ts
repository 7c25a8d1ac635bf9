/**
 * A TypeScript user's install from the npm registry, on the oldest @pulumi/pulumi version the
 * package's peer range admits (3.139.0, the first with `dynamic.ResourceProvider.configure`): the
 * release's two npm packages published to a loopback stand-in of the registry, the README's install
 * line run in a copy of the quickstart whose lockfile (test/fixtures/oldest-sdk) pins everything else,
 * then the quickstart run with the Pulumi CLI. The version each example's lockfile pins is proven by
 * the example's own test.
 */
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";

import { describe, expect, inject, it, onTestFinished } from "vitest";

import { sha512Integrity } from "../../scripts/release/tools";
import { PACKAGES, REPOSITORY_ROOT } from "../../scripts/support/user-project";
import {
  addRegistryUrls,
  cacheOfPinnedPackages,
  publishTo,
  startNpmRegistry,
} from "../support/stand-ins/npm-registry";
import {
  expectInstalledAsPinned,
  installedVersion,
  listAll,
  startExample,
} from "../support/engine/user-path";

const read = (path: string): string => readFileSync(join(REPOSITORY_ROOT, path), "utf8");

const manifest = JSON.parse(read("package.json")) as {
  version: string;
  peerDependencies: Record<string, string>;
};
const OLDEST = /^\^(\d+\.\d+\.\d+)$/.exec(manifest.peerDependencies["@pulumi/pulumi"] ?? "")?.[1];
const PROVEN = "3.139.0";

const PINS = "test/fixtures/oldest-sdk";
type Lockfile = {
  packages: Record<string, { version?: string; integrity?: string; [field: string]: unknown }>;
};
const PINNED = (JSON.parse(read(`${PINS}/package-lock.json`)) as Lockfile).packages;

const PROVIDER = "pulumi-notification-handlers";
const SERVER = "notification-handlers-server";

/** The TypeScript install line of the README's "Installing" section. */
function readmeInstallLine(): string {
  const section = /^## Installing\n([\s\S]*?)(?=^## )/m.exec(read("README.md"))?.[1] ?? "";
  const line = /^```sh\n(npm install pulumi-notification-handlers\b.*)\n```$/m.exec(section)?.[1];
  if (line === undefined)
    throw new Error(`README.md's "Installing" has no \`npm install ${PROVIDER}\` block`);
  return line;
}

type Dependencies = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

/** In a package.json or a lockfile's root: the provider not yet added, the server the release's. */
function beforeTheProvider(root: Dependencies): void {
  delete root.dependencies?.[PROVIDER];
  root.devDependencies = { ...root.devDependencies, [SERVER]: manifest.version };
}

/**
 * Makes the project what a user has before adding the package: the quickstart's files, depending on
 * the published server (as its README says to outside the repository), the fixture's lockfile without
 * this project's packages, with the registry URLs npm writes.
 */
async function withoutTheProvider(project: string): Promise<void> {
  const packageJson = join(project, "package.json");
  const projectManifest = JSON.parse(await readFile(packageJson, "utf8")) as Dependencies;
  beforeTheProvider(projectManifest);
  await writeFile(packageJson, `${JSON.stringify(projectManifest, null, 2)}\n`);
  const lockfile = join(project, "package-lock.json");
  const lock = JSON.parse(await readFile(lockfile, "utf8")) as Lockfile;
  beforeTheProvider(lock.packages[""] as Dependencies);
  for (const name of Object.keys(PACKAGES)) delete lock.packages[`node_modules/${name}`];
  await writeFile(lockfile, `${JSON.stringify(lock, null, 2)}\n`);
  await addRegistryUrls(lockfile);
}

describe("a TypeScript user's install from the npm registry, on the oldest @pulumi/pulumi of the peer range", () => {
  it("proves the oldest version of the peer range", () => {
    expect(OLDEST, "the peer range is ^x.y.z").toBe(PROVEN);
  });

  it(`the README's line installs the release from the registry; the quickstart on @pulumi/pulumi ${PROVEN}: up, no change after, destroy`, async () => {
    const line = readmeInstallLine();
    expect(line).toBe(`npm install ${PROVIDER}@${manifest.version} @pulumi/pulumi`);
    // npm takes a package named on its command line at the newest version its range allows,
    // whatever the lockfile pins: the one change to the README's line is the version it pins.
    const command = `${line}@${PINNED["node_modules/@pulumi/pulumi"]?.version}`;
    expect(command).toBe(`npm install ${PROVIDER}@${manifest.version} @pulumi/pulumi@${PROVEN}`);

    const stand = await startNpmRegistry(Object.keys(PACKAGES));
    onTestFinished(() => stand.close());
    const released = Object.entries(inject("packages")).map(([name, spec]) => ({
      name,
      tarball: spec.replace(/^file:/, ""),
    }));
    await Promise.all(released.map(({ tarball }) => publishTo(stand, tarball)));

    const { session, steps } = await startExample("quickstart", 4, { pins: PINS, seed: false });
    await withoutTheProvider(session.project);
    // npm's cache as on a machine that installed the pins before and never the release.
    const cache = join(session.root, "npm-cache");
    await cacheOfPinnedPackages(cache, join(session.project, "package-lock.json"));
    await session.mustSh(`export npm_config_registry=${stand.url} npm_config_cache=${cache}`);
    await session.mustSh(command);

    await expectInstalledAsPinned(session.project, PINNED);
    expect(await installedVersion(session, "@pulumi/pulumi")).toBe(PROVEN);
    const served = stand.requests.filter((r) => r.method === "GET" && r.status === 200).map((r) => r.path);
    // Every other package is handed on to registry.npmjs.org: the peer named on the line asked about.
    expect(served).toContain("/@pulumi/pulumi");
    const installed = (
      JSON.parse(
        await readFile(join(session.project, "node_modules", ".package-lock.json"), "utf8"),
      ) as Lockfile
    ).packages;
    for (const { name, tarball } of released) {
      expect(basename(tarball)).toBe(`${name}-${manifest.version}.tgz`);
      expect(served, `${name}'s tarball from the stand-in`).toContain(`/${name}/-/${basename(tarball)}`);
      const own = JSON.parse(
        await readFile(join(session.project, "node_modules", name, "package.json"), "utf8"),
      ) as { version: string };
      expect(own.version).toBe(manifest.version);
      expect(installed[`node_modules/${name}`]?.integrity, `${name}, the release's tarball`).toBe(
        await sha512Integrity(tarball),
      );
    }

    await session.step(steps[0]!);
    const { client } = await session.account();

    await session.step(steps[1]!);
    expect((await listAll(client)).map((h) => h.name).sort()).toEqual([
      "On-call email",
      "Pager SMS",
      "Status inbox",
      "Team Slack",
    ]);
    await session.mustSh("pulumi preview --expect-no-changes");
    await session.mustSh("pulumi destroy --yes");
    expect(await listAll(client)).toEqual([]);
  });
});
