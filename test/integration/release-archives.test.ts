/**
 * The release's tar.gz writer (scripts/release/tar-gz.ts) writes what a reviewer can rebuild: the
 * same entries make the same bytes in any order given, each entry owned by 0:0 with no names, mode
 * 0755 or 0644, stamped with the release's time, and the gzip header holds no time and no file name.
 * GNU tar reads it as written, and the reader takes back an archive Python's tarfile wrote, long
 * (pax) names included, as setuptools writes an sdist.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type TarEntry, readTarGz, writeTarGz } from "../../scripts/release/tar-gz";

const EPOCH = 1_790_000_000; // 2026-09-21T14:13:20Z
let folder = "";

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "release-archives-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const longName = `pkg-1.0.0/${"deep/".repeat(25)}module.py`;

describe("a release's tar.gz", () => {
  it("is the same bytes for the same entries in any order, with fixed metadata and no time in gzip", async () => {
    const onDisk = join(folder, "tool");
    await writeFile(onDisk, "#!/bin/sh\necho hi\n", { mode: 0o600 });
    const entries: TarEntry[] = [
      { name: "pkg-1.0.0/", executable: false },
      { name: "pkg-1.0.0/tool", executable: true, data: { file: onDisk } },
      { name: "pkg-1.0.0/README.md", executable: false, data: Buffer.from("# pkg\n") },
      { name: longName, executable: false, data: Buffer.alloc(700, 0x61) },
    ];
    const [a, b] = [join(folder, "a.tar.gz"), join(folder, "b.tar.gz")];
    await writeTarGz(a, entries, EPOCH);
    await writeTarGz(b, [...entries].reverse(), EPOCH);
    const bytes = await readFile(a);
    expect(bytes.equals(await readFile(b))).toBe(true);
    // ID1 ID2 CM, then FLG (no FNAME), MTIME 0.
    expect([...bytes.subarray(0, 8)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]);

    const listing = execFileSync("tar", ["--numeric-owner", "--full-time", "-tvzf", a], {
      encoding: "utf8",
      env: { ...process.env, TZ: "UTC" },
    })
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/));
    expect(listing.map((fields) => fields.slice(5).join(" "))).toEqual([
      "pkg-1.0.0/",
      "pkg-1.0.0/README.md",
      longName,
      "pkg-1.0.0/tool",
    ]);
    expect(listing.map((fields) => fields[0])).toEqual([
      "drwxr-xr-x",
      "-rw-r--r--",
      "-rw-r--r--",
      "-rwxr-xr-x",
    ]);
    for (const fields of listing) {
      expect(fields[1]).toBe("0/0");
      expect(`${fields[3]} ${fields[4]}`).toBe("2026-09-21 14:13:20");
    }
    expect(execFileSync("tar", ["-xzOf", a, "pkg-1.0.0/tool"], { encoding: "utf8" })).toBe(
      "#!/bin/sh\necho hi\n",
    );
  });

  it("is read back from what Python's tarfile writes, long names included", async () => {
    const archive = join(folder, "python.tar.gz");
    const script = [
      "import io, sys, tarfile",
      "with tarfile.open(sys.argv[1], 'w:gz', format=tarfile.PAX_FORMAT) as tar:",
      "    for name, data, mode in [(sys.argv[2], b'x = 1\\n', 0o644), ('pkg-1.0.0/run.sh', b'true\\n', 0o755)]:",
      "        info = tarfile.TarInfo(name); info.size = len(data); info.mode = mode; info.mtime = 12345",
      "        tar.addfile(info, io.BytesIO(data))",
    ].join("\n");
    execFileSync("python3", ["-c", script, archive, longName]);
    expect(await readTarGz(archive)).toEqual([
      { name: longName, executable: false, data: Buffer.from("x = 1\n") },
      { name: "pkg-1.0.0/run.sh", executable: true, data: Buffer.from("true\n") },
    ]);
  });

  it("refuses an entry twice and a path no ustar header can hold", async () => {
    const twice: TarEntry[] = [
      { name: "a", executable: false, data: Buffer.from("1") },
      { name: "a", executable: false, data: Buffer.from("2") },
    ];
    await expect(writeTarGz(join(folder, "twice.tar.gz"), twice, EPOCH)).rejects.toThrow("an entry twice");
    // A directory's trailing slash leaves no name to split at.
    for (const name of ["x".repeat(101), `${"x".repeat(101)}/`]) {
      const tooLong: TarEntry[] = [{ name, executable: false, data: Buffer.from("") }];
      await expect(writeTarGz(join(folder, "long.tar.gz"), tooLong, EPOCH)).rejects.toThrow(
        "a path too long for a ustar header",
      );
    }
  });
});
