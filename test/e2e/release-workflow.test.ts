/**
 * The release rebuilt in a second clone of the checkout, by `npm run release:verify` of that clone,
 * is the release the e2e set-up built, byte for byte; and the command, given that release with one
 * asset changed, names that asset alone. The clone reuses the first's installs and builds
 * (node_modules hard-linked, dist/ copied) and the release's cached runtimes and tools, so the second
 * build costs seconds.
 *
 * The release workflow's publish job (.github/workflows/release.yml), run as the gitops example's
 * workflows are (workflow-runner.ts), on the release the e2e set-up built and the Go SDK's tag as
 * `npm run release` bundles it: the GitHub release made with `gh` (a stand-in records it), the npm
 * packages published to a stand-in of the npm registry, the Python SDK uploaded to a stand-in of PyPI,
 * the Go SDK's tag pushed to a bare repository standing in for GitHub's; then each is taken from
 * there as a user's tools take it. A corrupt asset stops the job before anything is published. What
 * cannot run here (the upload to GitHub, trusted publishing's OIDC token) is in docs/releasing.md.
 */
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import { packageVersion, sha256File } from "../../scripts/release/build-plugin";
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
import { filesUnder, ensurePythonTools, sha512Integrity } from "../../scripts/release/tools";
import {
  mustRun,
  REPOSITORY_ROOT,
  runCommand,
  scratchFolder,
  userEnvironment,
} from "../../scripts/support/user-project";
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

/**
 * A second checkout at `to`: a clone of HEAD with the working tree's changes on it, the first's
 * node_modules hard-linked and its builds (dist/ but the plugin and releases, server/dist/) copied.
 */
async function secondCheckout(to: string): Promise<void> {
  const quiet = { cwd: root, env: process.env };
  await mustRun("git", ["clone", "--quiet", "--shared", REPOSITORY_ROOT, to], quiet);
  const changed = await mustRun("git", ["ls-files", "-z", "--modified", "--others", "--exclude-standard"], {
    cwd: REPOSITORY_ROOT,
    env: process.env,
  });
  for (const file of changed.stdout.split("\0").filter((name) => name !== "")) {
    if (existsSync(join(REPOSITORY_ROOT, file))) {
      await mkdir(dirname(join(to, file)), { recursive: true });
      await cp(join(REPOSITORY_ROOT, file), join(to, file));
    } else await rm(join(to, file), { force: true });
  }
  await mustRun("cp", ["-al", join(REPOSITORY_ROOT, "node_modules"), join(to, "node_modules")], quiet);
  const notCopied = ["plugin", "release"].map((name) => join(REPOSITORY_ROOT, "dist", name));
  await cp(join(REPOSITORY_ROOT, "dist"), join(to, "dist"), {
    recursive: true,
    filter: (source) => !notCopied.includes(source),
  });
  await cp(join(REPOSITORY_ROOT, "server", "dist"), join(to, "server", "dist"), { recursive: true });
}

describe("the release, rebuilt by release:verify in a second checkout", () => {
  it("is the same bytes, and the command names the one asset a release changed", async () => {
    const second = join(root, "second-checkout");
    await secondCheckout(second);
    // The release with one asset built otherwise: its bytes and its line in checksums.txt.
    const changed = join(root, "changed", TAG);
    await cp(inject("release"), changed, { recursive: true });
    const asset = `notification-handlers-server-${version}.tgz`;
    await writeFile(
      join(changed, asset),
      Buffer.concat([await readFile(join(changed, asset)), Buffer.from("\n")]),
    );
    const sums = await readFile(join(changed, "checksums.txt"), "utf8");
    const line = new RegExp(`^[0-9a-f]{64}(  ${asset.replaceAll(".", "\\.")})$`, "m");
    expect(sums).toMatch(line);
    await writeFile(
      join(changed, "checksums.txt"),
      sums.replace(line, `${await sha256File(join(changed, asset))}$1`),
    );

    const rebuild = join(root, "rebuild", TAG);
    const verify = await runCommand(
      process.execPath,
      [join(second, "dist", "scripts", "release", "verify-release.js"), changed, "--out", rebuild],
      { cwd: second, env: process.env },
    );
    expect(verify.code, verify.stderr).toBe(1);
    const named = verify.stdout
      .split("\n")
      .filter((text) => /^(differs|not rebuilt|not in the release|does not match)/.test(text));
    expect(named).toEqual([`differs: ${asset}`]);
    expect(verify.stdout).toContain("The commit and the toolchain are the same on both sides.");

    // Every byte of every asset, the two checksums.txt included.
    const files = await filesUnder(inject("release"));
    expect(await filesUnder(rebuild)).toEqual(files);
    const differing: string[] = [];
    for (const file of files)
      if (!(await readFile(join(inject("release"), file))).equals(await readFile(join(rebuild, file))))
        differing.push(file);
    expect(differing).toEqual([]);
  });
});

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
