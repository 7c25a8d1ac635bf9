/**
 * What `npm run release:verify` reads and concludes, apart from the rebuild (which
 * e2e/release-workflow runs): a release's checksums.txt, its version and platforms from its plugin
 * tarballs, each asset that differs or that one side lacks, and what likely made it differ.
 */
import { describe, expect, it } from "vitest";

import { PINNED_TOOLCHAIN } from "../../scripts/release/toolchain";
import {
  commonCauses,
  compareChecksums,
  parseChecksums,
  releasedPlugins,
  whatWritesIt,
} from "../../scripts/release/verify-release";

const sum = (c: string): string => c.repeat(64);

describe("a release's checksums.txt", () => {
  it("is read as sha256sum writes it", () => {
    const text = `${sum("a")}  checksums-free.tgz\n${sum("b")}  goproxy/x/@v/list\n`;
    expect([...parseChecksums(text, "checksums.txt")]).toEqual([
      ["checksums-free.tgz", sum("a")],
      ["goproxy/x/@v/list", sum("b")],
    ]);
  });

  it("is refused with the line that is not a checksum, a file listed twice, or nothing listed", () => {
    expect(() => parseChecksums(`${sum("a")}  a.tgz\nnot a line\n`, "release/checksums.txt")).toThrow(
      'release/checksums.txt line 2 is not "<sha256>  <file>", as sha256sum writes: not a line',
    );
    expect(() => parseChecksums(`${sum("a")}  a.tgz\n${sum("b")}  a.tgz\n`, "c.txt")).toThrow(
      "c.txt lists a.tgz twice",
    );
    expect(() => parseChecksums("\n", "c.txt")).toThrow("c.txt lists no file");
  });
});

describe("a release's plugin tarballs", () => {
  it("give its version and platforms", () => {
    const files = [
      "pulumi-resource-notification-handlers-v1.2.3-linux-amd64.tar.gz",
      "pulumi-resource-notification-handlers-v1.2.3-linux-amd64.tar.gz.cdx.json",
      "pulumi-resource-notification-handlers-v1.2.3-darwin-arm64.tar.gz",
      "checksums.txt",
    ];
    expect(releasedPlugins(files)).toEqual({ version: "1.2.3", platforms: ["darwin-arm64", "linux-amd64"] });
  });

  it("must name one version", () => {
    expect(() => releasedPlugins(["a.tgz"])).toThrow("not none");
    expect(() =>
      releasedPlugins([
        "pulumi-resource-notification-handlers-v1.0.0-linux-amd64.tar.gz",
        "pulumi-resource-notification-handlers-v1.0.1-linux-arm64.tar.gz",
      ]),
    ).toThrow("not 1.0.0, 1.0.1");
  });
});

describe("the comparison", () => {
  it("names each asset that differs, that the rebuild lacks and that the release lacks, and no other", () => {
    const release = new Map([
      ["same.tgz", sum("a")],
      ["pulumi_x-1.0.0-py3-none-any.whl", sum("b")],
      ["gone.zip", sum("c")],
    ]);
    const rebuild = new Map([
      ["same.tgz", sum("a")],
      ["pulumi_x-1.0.0-py3-none-any.whl", sum("d")],
      ["new.cdx.json", sum("e")],
    ]);
    expect(compareChecksums(release, rebuild).map(({ asset, what }) => `${what}: ${asset}`)).toEqual([
      "not rebuilt: gone.zip",
      "not in the release: new.cdx.json",
      "differs: pulumi_x-1.0.0-py3-none-any.whl",
    ]);
  });

  it("says what writes each kind of asset", () => {
    expect(whatWritesIt("pulumi-resource-notification-handlers-v1.0.0-linux-amd64.tar.gz")).toContain(
      "Node.js runtime",
    );
    expect(whatWritesIt("pulumi-notification-handlers-1.0.0.tgz")).toContain("npm pack");
    expect(whatWritesIt("pulumi_notification_handlers-1.0.0.tar.gz")).toContain("Python");
    expect(whatWritesIt("goproxy/m/@v/v1.0.0.zip")).toContain("Go's version");
    expect(whatWritesIt("x.tgz.cdx.json")).toContain("SBOM");
  });

  it("traces a difference to the commit, the time or a tool's version the two records give", () => {
    const record = { commit: "a".repeat(40), epoch: 100, toolchain: PINNED_TOOLCHAIN };
    expect(commonCauses(record, record)).toEqual([]);
    expect(commonCauses({ ...record, toolchain: { ...PINNED_TOOLCHAIN, node: "24.20.0" } }, record)).toEqual([
      `Node.js 24.20.0 (the release) against ${PINNED_TOOLCHAIN.node} (this rebuild)`,
    ]);
    expect(commonCauses({ ...record, commit: "b".repeat(40), epoch: 99 }, record)).toEqual([
      `the release was built from commit ${"b".repeat(40)}, the checkout is at ${"a".repeat(40)}: check out the release's tag`,
      "the release stamped its files with SOURCE_DATE_EPOCH=99, the rebuild with 100",
    ]);
    expect(commonCauses("no toolchain.json beside checksums.txt", record)).toEqual([
      "the release has no toolchain.json beside checksums.txt, so its commit and toolchain are unknown",
    ]);
  });
});
