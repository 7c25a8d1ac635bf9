/**
 * The release's pinned toolchain (scripts/release/toolchain.ts) is what builds it: the runtime of the
 * linux-amd64 executable, the Node.js npm ci installs, and the versions the release workflow's build
 * job installs; and the workflow's attestations are made in a job of their own, the only one that
 * may sign, by the action pinned by commit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";
import { parse } from "yaml";

import { RELEASE_TARGETS, findRuntime, platformOf } from "../../scripts/release/targets";
import { PINNED_TOOLCHAIN } from "../../scripts/release/toolchain";
import { REPOSITORY_ROOT } from "../../scripts/support/user-project";

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
