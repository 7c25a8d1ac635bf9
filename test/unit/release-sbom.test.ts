/**
 * The release's SBOMs (scripts/release/sbom.ts) are CycloneDX documents made from what they describe
 * alone: the same asset and commit make the same bytes, another asset another serial number; the npm
 * packages' components are what an install of them brings as the lockfile resolves it, nothing of the
 * development dependencies; the wheel's are its requirements, each with its range.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import {
  type SbomSubject,
  bundledPackages,
  cycloneDx,
  lockedDependencies,
  npmPurl,
  pythonRequirements,
} from "../../scripts/release/sbom";
import { REPOSITORY_ROOT } from "../../scripts/support/user-project";

const subject: SbomSubject = {
  asset: "example-1.0.0.tgz",
  sha256: "a".repeat(64),
  component: {
    type: "library",
    name: "example",
    version: "1.0.0",
    license: "Apache-2.0",
    purl: npmPurl("example", "1.0.0"),
  },
  components: [
    { type: "library", name: "zod", version: "4.0.0", license: "MIT", purl: npmPurl("zod", "4.0.0") },
    { type: "library", name: "@a/b", version: "1.0.0", purl: npmPurl("@a/b", "1.0.0") },
  ],
};
const release = { commit: "0123456789abcdef0123456789abcdef01234567", epoch: 1_790_000_000 };

describe("an SBOM", () => {
  it("is CycloneDX 1.5 stamped with the release's time, its components in name order", () => {
    const document = JSON.parse(cycloneDx(subject, release)) as {
      bomFormat: string;
      specVersion: string;
      serialNumber: string;
      metadata: { timestamp: string; component: { hashes: unknown[] } };
      components: { name: string; purl: string; licenses?: unknown[] }[];
    };
    expect(document).toMatchObject({ bomFormat: "CycloneDX", specVersion: "1.5" });
    expect(document.metadata.timestamp).toBe("2026-09-21T14:13:20Z");
    expect(document.metadata.component.hashes).toEqual([{ alg: "SHA-256", content: "a".repeat(64) }]);
    expect(document.components.map((c) => c.purl)).toEqual(["pkg:npm/%40a/b@1.0.0", "pkg:npm/zod@4.0.0"]);
    expect(document.components[1]!.licenses).toEqual([{ expression: "MIT" }]);
    // A version 5 UUID, as CycloneDX's schema asks of a serial number.
    expect(document.serialNumber).toMatch(
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it("is the same for the same asset and commit, and has another serial number for other bytes", () => {
    const serial = (text: string): string => (JSON.parse(text) as { serialNumber: string }).serialNumber;
    expect(cycloneDx(subject, release)).toBe(
      cycloneDx({ ...subject, components: [...subject.components].reverse() }, release),
    );
    expect(serial(cycloneDx({ ...subject, sha256: "b".repeat(64) }, release))).not.toBe(
      serial(cycloneDx(subject, release)),
    );
    expect(serial(cycloneDx(subject, { ...release, commit: "f".repeat(40) }))).not.toBe(
      serial(cycloneDx(subject, release)),
    );
  });

  it("refuses a component named twice", () => {
    expect(() =>
      cycloneDx({ ...subject, components: [subject.components[0]!, subject.components[0]!] }, release),
    ).toThrow("example-1.0.0.tgz's SBOM names a component twice");
  });
});

describe("the components", () => {
  it("of the npm package are what its install brings, as the lockfile resolves them", () => {
    const ref = npmPurl("pulumi-notification-handlers", "0.2.0");
    const { components, dependencies } = lockedDependencies("", ref);
    const names = components.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["undici", "yaml", "zod"]));
    for (const dev of ["vitest", "typescript", "esbuild", "@pulumi/pulumi", "fastify"])
      expect(names).not.toContain(dev);
    for (const component of components) {
      expect(component.version, component.name).toMatch(/^\d+\.\d+\.\d+/);
      expect(component.hash?.alg, component.name).toBe("SHA-512");
    }
    expect(dependencies.get(ref)).toEqual(
      components
        .filter((c) => ["undici", "yaml", "zod"].includes(c.name))
        .map((c) => c.purl)
        .sort(),
    );
  });

  it("of the npm packages form a graph whose every ref is a component of the document", () => {
    for (const [location, name] of [
      ["", "pulumi-notification-handlers"],
      ["server", "notification-handlers-server"],
    ] as const) {
      const purl = npmPurl(name, "0.2.0");
      const document = JSON.parse(
        cycloneDx(
          {
            asset: `${name}-0.2.0.tgz`,
            sha256: "a".repeat(64),
            component: { type: "library", name, version: "0.2.0", purl },
            ...lockedDependencies(location, purl),
          },
          release,
        ),
      ) as {
        metadata: { component: { "bom-ref": string } };
        components: { "bom-ref": string }[];
        dependencies: { ref: string; dependsOn: string[] }[];
      };
      const refs = [document.metadata.component["bom-ref"], ...document.components.map((c) => c["bom-ref"])];
      const named = document.dependencies.flatMap(({ ref, dependsOn }) => [ref, ...dependsOn]);
      expect(
        named.filter((ref) => !refs.includes(ref)),
        name,
      ).toEqual([]);
      expect(document.dependencies.map(({ ref }) => ref).sort(), name).toEqual([...refs].sort());
    }
  });

  it("of the server's package are its own dependencies' trees", () => {
    const { components } = lockedDependencies("server", npmPurl("notification-handlers-server", "0.2.0"));
    const names = components.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["fastify", "pg", "zod"]));
    expect(names).not.toContain("undici");
  });

  it("of an executable are the packages esbuild bundled, as their installed package.json files say", () => {
    const manifest = (name: string): { version: string; license: string } =>
      JSON.parse(readFileSync(join(REPOSITORY_ROOT, "node_modules", name, "package.json"), "utf8")) as {
        version: string;
        license: string;
      };
    const inputs = [
      "cli/plugin-executable.ts",
      "node_modules/undici/index.js",
      "node_modules/undici/lib/dispatcher/client.js",
      "node_modules/@grpc/grpc-js/build/src/index.js",
    ];
    expect(bundledPackages(inputs)).toEqual([
      {
        type: "library",
        name: "undici",
        version: manifest("undici").version,
        license: manifest("undici").license,
        purl: npmPurl("undici", manifest("undici").version),
      },
      {
        type: "library",
        name: "@grpc/grpc-js",
        version: manifest("@grpc/grpc-js").version,
        license: manifest("@grpc/grpc-js").license,
        purl: npmPurl("@grpc/grpc-js", manifest("@grpc/grpc-js").version),
      },
    ]);
  });

  it("of the wheel are its requirements, with their ranges and markers", () => {
    const metadata = [
      "Metadata-Version: 2.4",
      "Name: pulumi_notification_handlers",
      "Requires-Dist: parver>=0.2.1",
      "Requires-Dist: pulumi<4.0.0,>=3.231.0",
      'Requires-Dist: typing_extensions<5,>=4.11; python_version < "3.11"',
      "",
    ].join("\n");
    expect(pythonRequirements(metadata)).toEqual([
      {
        type: "library",
        name: "parver",
        purl: "pkg:pypi/parver",
        properties: { "python:requirement": "parver>=0.2.1" },
      },
      {
        type: "library",
        name: "pulumi",
        purl: "pkg:pypi/pulumi",
        properties: { "python:requirement": "pulumi<4.0.0,>=3.231.0" },
      },
      {
        type: "library",
        name: "typing-extensions",
        purl: "pkg:pypi/typing-extensions",
        properties: {
          "python:requirement": "typing-extensions<5,>=4.11",
          "python:marker": 'python_version < "3.11"',
        },
      },
    ]);
  });
});
