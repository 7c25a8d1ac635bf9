/**
 * The release's SBOMs: a CycloneDX 1.5 document (JSON) beside each npm package, the wheel and each
 * plugin tarball, `<asset>.cdx.json`, naming what the asset holds or installs with each component's
 * version, licence and package URL. Made reproducibly: the time is the release's (`SOURCE_DATE_EPOCH`),
 * the serial number a UUID derived from the asset's SHA-256 and the commit, the components in name
 * order; nothing of the machine or the moment.
 *
 * Where the components come from: for an npm package, the dependencies its install brings as the
 * repository's package-lock.json resolves them; for the plugin's executable, the packages esbuild
 * bundled (their installed package.json files) and the Node.js runtime it is made of; for the wheel,
 * the requirements of its metadata, each with its range and no version, since pip chooses at install.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { REPOSITORY_URL } from "../../provider/tokens";
import { rfc3339 } from "./commit";
import { REPOSITORY_ROOT } from "../support/user-project";

/** One component of a CycloneDX document, as the release writes them. */
export interface SbomComponent {
  type: "application" | "library" | "platform";
  name: string;
  /** None where the version is chosen at install (a Python requirement's range is a property). */
  version?: string;
  /** An SPDX licence expression (`MIT`, `(MIT OR Apache-2.0)`), as package.json gives it. */
  license?: string;
  purl: string;
  /** A digest of what the component is: `SHA-256` or `SHA-512`, in hex. */
  hash?: { alg: "SHA-256" | "SHA-512"; hex: string };
  /** Extra facts, as CycloneDX properties (a requirement's range, say). */
  properties?: Record<string, string>;
}

/** What one SBOM describes: the asset's own component and what it holds or installs. */
export interface SbomSubject {
  /** The asset's file name. */
  asset: string;
  /** The asset's SHA-256, in hex, which the document's serial number and subject carry. */
  sha256: string;
  component: SbomComponent;
  components: readonly SbomComponent[];
  /** The `bom-ref`s each component depends on, by `bom-ref` (the purl), where known. */
  dependencies?: ReadonlyMap<string, readonly string[]>;
}

/** A package URL for an npm package: `pkg:npm/%40scope/name@1.0.0`. */
export const npmPurl = (name: string, version: string): string =>
  `pkg:npm/${name.replace(/^@/, "%40")}@${version}`;

/** Strings in code-point order, which no locale's collation changes. */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A UUID of version 5 (RFC 9562: SHA-1 of a namespace and a name), for the URL namespace. */
function uuidV5(name: string): string {
  const urlNamespace = Buffer.from("6ba7b8119dad11d180b400c04fd430c8", "hex");
  const bytes = createHash("sha1").update(urlNamespace).update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The hex of an npm integrity (`sha512-<base64>`), or nothing for another kind. */
export function integrityHash(integrity: string | undefined): SbomComponent["hash"] {
  const base64 = /^sha512-(.+)$/.exec(integrity ?? "")?.[1];
  return base64 === undefined
    ? undefined
    : { alg: "SHA-512", hex: Buffer.from(base64, "base64").toString("hex") };
}

function cdxComponent(component: SbomComponent): Record<string, unknown> {
  return {
    type: component.type,
    "bom-ref": component.purl,
    name: component.name,
    ...(component.version === undefined ? {} : { version: component.version }),
    ...(component.hash === undefined
      ? {}
      : { hashes: [{ alg: component.hash.alg, content: component.hash.hex }] }),
    ...(component.license === undefined ? {} : { licenses: [{ expression: component.license }] }),
    purl: component.purl,
    ...(component.properties === undefined
      ? {}
      : {
          properties: Object.entries(component.properties).map(([name, value]) => ({ name, value })),
        }),
  };
}

/** The SBOM of `subject` as the release writes it, for the commit `commit` stamped `epoch`. */
export function cycloneDx(subject: SbomSubject, release: { commit: string; epoch: number }): string {
  const components = [...subject.components].sort(
    (a, b) => byCodePoint(a.name, b.name) || byCodePoint(a.version ?? "", b.version ?? ""),
  );
  const refs = [subject.component.purl, ...components.map((c) => c.purl)];
  if (new Set(refs).size !== refs.length) throw new Error(`${subject.asset}'s SBOM names a component twice`);
  const document = {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    serialNumber: `urn:uuid:${uuidV5(`${REPOSITORY_URL}/commit/${release.commit}#${subject.asset}@sha256:${subject.sha256}`)}`,
    version: 1,
    metadata: {
      timestamp: rfc3339(release.epoch),
      component: cdxComponent({ ...subject.component, hash: { alg: "SHA-256", hex: subject.sha256 } }),
      properties: [{ name: "vcs:commit", value: `${REPOSITORY_URL}/commit/${release.commit}` }],
    },
    components: components.map(cdxComponent),
    ...(subject.dependencies === undefined
      ? {}
      : {
          dependencies: [...subject.dependencies.entries()]
            .sort(([a], [b]) => byCodePoint(a, b))
            .map(([ref, dependsOn]) => ({ ref, dependsOn: [...dependsOn].sort() })),
        }),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** An entry of package-lock.json's `packages`. */
interface LockedPackage {
  name?: string;
  version?: string;
  license?: string;
  integrity?: string;
  link?: boolean;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The package name at a lockfile location: `node_modules/@a/b/node_modules/c` is `c`. */
const nameAt = (location: string): string => location.slice(location.lastIndexOf("node_modules/") + 13);

/**
 * The packages an install of the workspace at `location` (`""` for the root, `server`) brings, as
 * package-lock.json resolves them, found as Node.js finds a module: in `node_modules` of the package,
 * then of each folder above. Its peers are the user's own, and left out.
 */
export function lockedDependencies(
  location: string,
  /** The `bom-ref` of the workspace's own package, which the dependency graph starts from. */
  ref: string,
  lockfile = join(REPOSITORY_ROOT, "package-lock.json"),
): { components: SbomComponent[]; dependencies: Map<string, string[]> } {
  const packages = (JSON.parse(readFileSync(lockfile, "utf8")) as { packages: Record<string, LockedPackage> })
    .packages;
  const resolve = (from: string, name: string): string | undefined => {
    for (let folder = from; ; folder = folder.slice(0, Math.max(0, folder.lastIndexOf("/node_modules")))) {
      const candidate = `${folder === "" ? "" : `${folder}/`}node_modules/${name}`;
      const found = packages[candidate];
      if (found !== undefined) return found.link === true ? found.resolved : candidate;
      if (folder === "") return undefined;
    }
  };
  const purlAt = (at: string): string => npmPurl(packages[at]?.name ?? nameAt(at), packages[at]!.version!);
  const components = new Map<string, SbomComponent>();
  const dependencies = new Map<string, string[]>();
  const visit = (at: string, top: boolean): void => {
    const entry = packages[at]!;
    const wanted = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...(top ? {} : entry.peerDependencies),
    };
    const found: string[] = [];
    for (const name of Object.keys(wanted).sort()) {
      const child = resolve(at, name);
      if (child === undefined) {
        if (name in (entry.dependencies ?? {}))
          throw new Error(`package-lock.json resolves no ${name} for ${at || "the root"}: run npm install`);
        continue; // an optional dependency or a peer not installed
      }
      found.push(purlAt(child));
      if (components.has(purlAt(child))) continue;
      const locked = packages[child]!;
      components.set(purlAt(child), {
        type: "library",
        name: locked.name ?? nameAt(child),
        version: locked.version!,
        ...(locked.license === undefined ? {} : { license: locked.license }),
        purl: purlAt(child),
        ...(integrityHash(locked.integrity) === undefined ? {} : { hash: integrityHash(locked.integrity)! }),
      });
      visit(child, false);
    }
    dependencies.set(top ? ref : purlAt(at), found);
  };
  visit(location, true);
  return { components: [...components.values()], dependencies };
}

/**
 * The packages esbuild bundled, from its inputs (paths relative to the repository): each file under
 * a `node_modules/<package>/` is that package's, whose installed package.json gives its version and
 * licence; the repository's own files are the subject's.
 */
export function bundledPackages(inputs: readonly string[], root = REPOSITORY_ROOT): SbomComponent[] {
  const components = new Map<string, SbomComponent>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match === null) continue;
    const manifestFile = join(root, match[1]!, "package.json");
    if (!existsSync(manifestFile)) throw new Error(`${input} was bundled, but ${manifestFile} is missing`);
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const purl = npmPurl(manifest.name, manifest.version);
    components.set(purl, {
      type: "library",
      name: manifest.name,
      version: manifest.version,
      ...(typeof manifest.license === "string" ? { license: manifest.license } : {}),
      purl,
    });
  }
  return [...components.values()];
}

/** The requirements of a Python distribution's metadata (`Requires-Dist:` lines), with their ranges. */
export function pythonRequirements(metadata: string): SbomComponent[] {
  return [...metadata.matchAll(/^Requires-Dist: ([A-Za-z0-9._-]+)([^;\n]*)(;[^\n]*)?$/gm)].map((match) => {
    const name = match[1]!.toLowerCase().replaceAll("_", "-");
    const range = match[2]!.trim();
    // No version: pip chooses one at install, within the range the wheel asks for.
    return {
      type: "library",
      name,
      purl: `pkg:pypi/${name}`,
      properties: {
        "python:requirement": `${name}${range}`,
        ...(match[3] === undefined ? {} : { "python:marker": match[3].slice(1).trim() }),
      },
    };
  });
}
