/**
 * Before any e2e worker starts: makes the Pulumi engine available once (building it from Go takes
 * minutes the first time; later runs find it in the user's cache folder), with a Node.js language host
 * (an installed one, else the project's own), builds the plugin's tarball and the SDKs, and makes the
 * release of this machine's platform as `npm run release` makes it (the packages as npm publishes
 * them, the Python SDK's wheel, the Go SDK's module), for the tests on the user's path, with the npm
 * packages published to a stand-in of the registry.
 */
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

import {
  PLUGIN_BUILD,
  buildPlugin,
  machinePlatform,
  packageVersion,
} from "../../../scripts/release/build-plugin";
import { CHECKOUT_SDKS, generateSdks } from "../../../scripts/release/build-sdks";
import { enginePath, ensureEngine } from "../../../scripts/engine/engine";
import { buildRelease, releasedPackages } from "../../../scripts/release/release";
import { type PackageSpecs, scratchFolder } from "../../../scripts/support/user-project";
import { startReleaseOnNpm } from "../stand-ins/npm-registry";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const engine = await ensureEngine({
    projectRoot: resolve(__dirname, "..", "..", ".."),
    log: (line) => process.stderr.write(`[engine] ${line}\n`),
    yaml: true,
  });
  // The provider plugin's tarball where `npm run build:plugin` writes it, and the SDKs where
  // `npm run build:sdks` writes them, for the READMEs that install them.
  const tarball = await buildPlugin(PLUGIN_BUILD, (line) => process.stderr.write(`[plugin] ${line}\n`));
  await generateSdks({ ...CHECKOUT_SDKS, log: (line) => process.stderr.write(`[sdks] ${line}\n`) });
  project.provide("engineBinDir", engine.binDir);
  project.provide("enginePath", enginePath(engine));

  const releases = await scratchFolder("release");
  const release = await buildRelease((line) => process.stderr.write(`[release] ${line}\n`), {
    platforms: [machinePlatform()],
    out: join(releases, `v${packageVersion()}`),
    machinePlugin: tarball,
  });
  project.provide("release", release);
  const packages = releasedPackages(release);
  project.provide("packages", packages);
  // The examples name the release's packages by version, as a user's project does: npm takes them
  // from here, and every other package from registry.npmjs.org through it.
  const log = join(releases, "npm-registry.log");
  const npm = await startReleaseOnNpm(packages, log);
  project.provide("npmRegistry", { url: npm.env.npm_config_registry!, log });
  const installs = await scratchFolder("installs");
  project.provide("installs", installs);
  return async () => {
    await npm.close();
    await rm(releases, { recursive: true, force: true });
    await rm(installs, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    engineBinDir: string;
    /** Folders to put first on a user's PATH: the CLI, the language host, the pinned Node.js. */
    enginePath: string[];
    /** The release of this machine's platform, as `npm run release` lays it out. */
    release: string;
    /** The repository's packages as `npm pack` made them for the release, as `file:` specs. */
    packages: PackageSpecs;
    /**
     * A stand-in of the npm registry serving `packages` at the release's version, for the examples,
     * and the file it logs each request it answered to.
     */
    npmRegistry: { url: string; log: string };
    /** A folder for the finished installs that user projects are seeded from (see `seedDependencies`). */
    installs: string;
  }
}
