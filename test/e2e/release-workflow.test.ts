/**
 * The release workflow's publish job (.github/workflows/release.yml), run as the gitops example's
 * workflows are (workflow-runner.ts), on the release the e2e set-up built and the Go SDK's tag as
 * `npm run release` bundles it: the GitHub release made with `gh` (a stand-in records it), the npm
 * packages published to a stand-in of the npm registry, the Python SDK uploaded to a stand-in of PyPI,
 * the Go SDK's tag pushed to a bare repository standing in for GitHub's; then each is taken from
 * there as a user's tools take it. A corrupt asset stops the job before anything is published. What
 * cannot run here (the upload to GitHub, trusted publishing's OIDC token) is in docs/releasing.md.
 */
import { chmod, cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import { packageVersion } from "../../scripts/release/build-plugin";
import { PYTHON_DISTRIBUTION } from "../../scripts/release/release";
import {
  GO_SDK_FOLDER,
  GO_SDK_MODULE,
  bundleGoSdkTag,
  goSdkBundleName,
  goSdkFromRepository,
  goSdkTag,
  tagGoSdk,
} from "../../scripts/release/go-tag";
import { ensurePythonTools, sha512Integrity } from "../../scripts/release/tools";
import { mustRun, REPOSITORY_ROOT, scratchFolder, userEnvironment } from "../../scripts/support/user-project";
import { type NpmRegistryStandIn, startNpmRegistry } from "../support/stand-ins/npm-registry";
import { type PackageIndex, startPackageIndex } from "../support/stand-ins/package-index";
import { type JobOptions, readWorkflow, runJob } from "../support/engine/workflow-runner";

const version = packageVersion();
const TAG = `v${version}`;
const WORKFLOW = join(REPOSITORY_ROOT, ".github", "workflows", "release.yml");
const NPM_PACKAGES = ["pulumi-notification-handlers", "notification-handlers-server"];

// Stands in for GitHub's `gh` CLI: records its arguments, one a line.
const FAKE_GH = `#!/usr/bin/env bash
[ -n "$GH_TOKEN" ] || { echo "gh: GH_TOKEN is not set" >&2; exit 4; }
printf '%s\\n' "$@" > "$GH_RECORD"
`;

let root = "";
let registry: NpmRegistryStandIn | undefined;
let index: PackageIndex | undefined;
/** The bare repository the job's checkout has as its `origin`. */
let origin = "";

afterAll(async () => {
  await registry?.close();
  await index?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

beforeAll(async () => {
  root = await scratchFolder("release-workflow");
  const quiet = { cwd: root, env: process.env };
  origin = join(root, "origin.git");
  await mustRun("git", ["clone", "--quiet", "--bare", "--local", REPOSITORY_ROOT, origin], quiet);
  // The build job's part: the Go SDK tagged on the released commit and bundled, as `npm run release` does.
  const built = join(root, "built.git");
  await mustRun("git", ["clone", "--quiet", "--bare", "--local", REPOSITORY_ROOT, built], quiet);
  await tagGoSdk({ repository: built, sdkGo: join(REPOSITORY_ROOT, GO_SDK_FOLDER), version });
  registry = await startNpmRegistry(NPM_PACKAGES);
  index = await startPackageIndex([], join(root, "index"));
  await bundleGoSdkTag(built, version, join(root, goSdkBundleName(version)));
});

/** A checkout of `origin` holding the build job's artifact under `release/`, as download-artifact leaves it. */
async function checkoutWithArtifact(name: string): Promise<string> {
  const checkout = join(root, name);
  await mustRun("git", ["clone", "--quiet", origin, checkout], { cwd: root, env: process.env });
  await cp(inject("release"), join(checkout, "release", TAG), { recursive: true });
  await cp(join(root, goSdkBundleName(version)), join(checkout, "release", goSdkBundleName(version)));
  return checkout;
}

/** The publish job's environment: a runner's, its registries taken from the stand-ins. */
async function publishJob(checkout: string): Promise<JobOptions & { record: string }> {
  const bin = join(root, `${basename(checkout)}-bin`);
  await mkdir(bin);
  await writeFile(join(bin, "gh"), FAKE_GH);
  await chmod(join(bin, "gh"), 0o755);
  const npmrc = join(root, `${basename(checkout)}.npmrc`);
  await writeFile(npmrc, `${registry!.url.replace(/^http:/, "")}:_authToken=${registry!.token}\n`);
  const record = join(root, `${basename(checkout)}-gh`);
  return {
    cwd: checkout,
    record,
    env: {
      ...userEnvironment({
        home: join(root, `${basename(checkout)}-home`),
        pathFirst: [bin, ...inject("enginePath")],
      }),
      GITHUB_REF_NAME: TAG,
      RUNNER_TEMP: join(root, `${basename(checkout)}-temp`),
      GH_RECORD: record,
      npm_config_registry: registry!.url,
      npm_config_userconfig: npmrc,
      TWINE_REPOSITORY_URL: index!.url,
      // pypiserver takes any name and password (-a . -P .); PyPI takes the job's OIDC token instead.
      TWINE_USERNAME: "release",
      TWINE_PASSWORD: "stand-in",
    },
    context: { "github.token": "ghs_placeholder", "github.ref_name": TAG },
  };
}

describe("the release workflow's publish job", () => {
  it("refuses a corrupt asset before publishing anything", async () => {
    const checkout = await checkoutWithArtifact("corrupt");
    const wheel = join(checkout, "release", TAG, `${PYTHON_DISTRIBUTION}-${version}-py3-none-any.whl`);
    await writeFile(wheel, Buffer.concat([await readFile(wheel), Buffer.from("\n")]));
    const job = await publishJob(checkout);
    const run = await runJob(await readWorkflow(WORKFLOW), "publish", job);
    expect(run.success).toBe(false);
    const check = run.steps.find((s) => s.name === "Check the assets against checksums.txt")!;
    expect(check.result?.stdout).toContain(`${basename(wheel)}: FAILED`);
    expect(run.steps.filter((s) => s.result !== undefined).map((s) => s.name)).toEqual([
      "Check the assets against checksums.txt",
    ]);
    expect(registry!.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(index!.requests).toEqual([]);
  });

  it("makes the GitHub release, publishes the packages and pushes the Go SDK's tag", async () => {
    const checkout = await checkoutWithArtifact("publish");
    const job = await publishJob(checkout);
    const run = await runJob(await readWorkflow(WORKFLOW), "publish", job);
    const printed = run.steps.map((s) => `${s.name}\n${s.result?.stdout ?? ""}${s.result?.stderr ?? ""}`);
    expect(run.success, printed.join("\n")).toBe(true);

    // The GitHub release: every asset of the release's folder, the plugin's tarball among them.
    const assets = (await readdir(inject("release"), { withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => `release/${TAG}/${entry.name}`)
      .sort();
    expect(assets).toContain(
      `release/${TAG}/pulumi-resource-notification-handlers-${TAG}-linux-amd64.tar.gz`,
    );
    const gh = (await readFile(job.record, "utf8")).trimEnd().split("\n");
    expect(gh.slice(0, 6)).toEqual(["release", "create", TAG, "--verify-tag", "--title", TAG]);
    expect(gh.slice(8).sort()).toEqual(assets);

    // npm: each package as the release packed it, byte for byte.
    for (const name of NPM_PACKAGES) {
      const tarball = join(inject("release"), `${name}-${version}.tgz`);
      const view = await mustRun("npm", ["view", `${name}@${version}`, "dist.integrity"], {
        cwd: checkout,
        env: job.env,
      });
      expect(view.stdout.trim(), name).toBe(await sha512Integrity(tarball));
    }

    // PyPI: pip downloads the wheel the release built.
    const python = await ensurePythonTools(() => undefined);
    const downloads = join(root, "pip-downloads");
    await mustRun(
      python,
      [
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--dest",
        downloads,
        "--index-url",
        `${index!.url}/simple/`,
        `${PYTHON_DISTRIBUTION}==${version}`,
      ],
      { cwd: root, env: { ...process.env, PIP_FIND_LINKS: "", PIP_EXTRA_INDEX_URL: "" } },
    );
    const wheel = `${PYTHON_DISTRIBUTION}-${version}-py3-none-any.whl`;
    expect(await readFile(join(downloads, wheel))).toEqual(await readFile(join(inject("release"), wheel)));

    // Go: the tag on GitHub's stand-in, from which the go command takes the module.
    const tagged = await mustRun("git", ["show", `${goSdkTag(version)}:${GO_SDK_FOLDER}/go.mod`], {
      cwd: origin,
      env: process.env,
    });
    expect(tagged.stdout).toMatch(new RegExp(`^module ${GO_SDK_MODULE}\n`));
    const goModCache = join(root, "go-mod-cache");
    const { stdout } = await mustRun("go", ["mod", "download", "-json", `${GO_SDK_MODULE}@${TAG}`], {
      cwd: root,
      env: { ...process.env, ...goSdkFromRepository(origin), GOMODCACHE: goModCache, GOFLAGS: "-modcacherw" },
    });
    const downloaded = JSON.parse(stdout) as { Version?: string; Origin?: { Ref?: string } };
    expect(downloaded).toMatchObject({ Version: TAG, Origin: { Ref: `refs/tags/${goSdkTag(version)}` } });
  });
});
