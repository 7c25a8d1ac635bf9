/**
 * Writes a release's SBOMs (scripts/release/sbom.ts), `<asset>.cdx.json` beside each asset they
 * describe: the two npm packages, the wheel, and each plugin tarball, whose executable holds the
 * bundle's packages and the Node.js runtime of its target.
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

import { PLUGIN_EXECUTABLE, REPOSITORY_URL } from "../../provider/tokens";
import { pluginTarballName, sha256File } from "./build-plugin";
import type { ReleaseCommit } from "./commit";
import {
  type SbomComponent,
  type SbomSubject,
  bundledPackages,
  cycloneDx,
  integrityHash,
  lockedDependencies,
  npmPurl,
  pythonRequirements,
} from "./sbom";
import { type NodeRuntime, type ReleaseTarget, findRuntime, platformOf } from "./targets";
import { PACKAGES, REPOSITORY_ROOT } from "../support/user-project";

/** An asset's SBOM file name. */
export const sbomName = (asset: string): string => `${asset}.cdx.json`;

/** The project's licence, as package.json names it. */
const LICENSE = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as { license: string }
).license;

/** The Node.js runtime an executable is made of, as a component. */
function runtimeComponent(runtime: NodeRuntime): SbomComponent {
  return {
    type: "platform",
    name: runtime.name,
    version: runtime.version,
    // Node.js's own licence; its LICENSE file also lists those of the libraries it bundles.
    license: "MIT",
    purl: npmPurl(runtime.name, runtime.version),
    hash: integrityHash(runtime.integrity)!,
    properties: { description: `the Node.js v${runtime.version} runtime the executable is made of` },
  };
}

/** What {@link writeReleaseSboms} needs of the release being built. */
export interface ReleaseContents {
  out: string;
  version: string;
  source: ReleaseCommit;
  targets: readonly ReleaseTarget[];
  /** The files esbuild bundled into the executables, relative to the repository. */
  bundled: readonly string[];
  /** The Python SDK's PKG-INFO. */
  pythonMetadata: string;
  wheel: string;
}

/** Writes each asset's SBOM into the release folder. */
export async function writeReleaseSboms(release: ReleaseContents): Promise<void> {
  const { out, version } = release;
  const subjects: Omit<SbomSubject, "sha256">[] = [];
  for (const [name, folder] of Object.entries(PACKAGES)) {
    const purl = npmPurl(name, version);
    const { components, dependencies } = lockedDependencies(folder === "." ? "" : folder, purl);
    subjects.push({
      asset: `${name}-${version}.tgz`,
      component: { type: "library", name, version, license: LICENSE, purl },
      components,
      dependencies,
    });
  }
  subjects.push({
    asset: release.wheel,
    component: {
      type: "library",
      name: "pulumi-notification-handlers",
      version,
      license: LICENSE,
      purl: `pkg:pypi/pulumi-notification-handlers@${version}`,
    },
    components: pythonRequirements(release.pythonMetadata),
  });
  const bundled = bundledPackages(release.bundled);
  for (const target of release.targets) {
    const shared = "sameAs" in target ? release.targets.find((t) => platformOf(t) === target.sameAs) : target;
    if (shared === undefined || !("runtime" in shared))
      throw new Error(`${platformOf(target)} has no runtime`);
    subjects.push({
      asset: pluginTarballName(version, platformOf(target)),
      component: {
        type: "application",
        name: PLUGIN_EXECUTABLE,
        version,
        license: LICENSE,
        purl: `pkg:github/${new URL(REPOSITORY_URL).pathname.slice(1)}@v${version}`,
        properties: { platform: platformOf(target) },
      },
      components: [...bundled, runtimeComponent(findRuntime(shared.runtime))],
    });
  }
  for (const subject of subjects) {
    const sha256 = await sha256File(join(out, subject.asset));
    await writeFile(join(out, sbomName(subject.asset)), cycloneDx({ ...subject, sha256 }, release.source));
  }
}
