/**
 * Reading a release's executables from their bytes (scripts/release/formats.ts), on small files made
 * here with the fields each format's header puts where: the format and machine, the blown
 * single-executable fuse, a Mach-O's code signature checked page by page, and a PE's Authenticode
 * signature taken off with its checksum computed again.
 */
import { createHash } from "node:crypto";

import { describe, expect, it } from "vitest";

import { SEA_FUSE } from "../../scripts/release/build-plugin";
import {
  inspectExecutable,
  peChecksum,
  withPeChecksum,
  withoutAuthenticode,
} from "../../scripts/release/formats";

/** An ELF header: 64-bit little-endian unless told, for `machine`. */
function elf(machine: number, elfClass = 2): Buffer {
  const bytes = Buffer.alloc(64);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, elfClass, 1], 0);
  bytes.writeUInt16LE(machine, 18);
  return bytes;
}

const PAGE = 4096;

/**
 * A Mach-O for x86-64: a NODE_SEA segment and `code` after its load commands, then a __LINKEDIT
 * segment holding only the signature, ad hoc over everything before it, 4 KiB pages hashed with
 * SHA-256, as rcodesign signs.
 */
function signedMachO(code: Buffer): Buffer {
  const commands = Buffer.alloc(72 * 2 + 16);
  for (const [i, name] of ["NODE_SEA", "__LINKEDIT"].entries()) {
    commands.writeUInt32LE(0x19, i * 72); // LC_SEGMENT_64
    commands.writeUInt32LE(72, i * 72 + 4);
    commands.write(name, i * 72 + 8, "latin1");
  }
  commands.writeUInt32LE(0x1d, 144); // LC_CODE_SIGNATURE
  commands.writeUInt32LE(16, 148);
  const header = Buffer.alloc(32);
  header.writeUInt32LE(0xfeedfacf, 0);
  header.writeUInt32LE(0x01000007, 4);
  header.writeUInt32LE(3, 16); // ncmds
  header.writeUInt32LE(commands.length, 20);
  const offset = header.length + commands.length + code.length;

  const identifier = Buffer.from("pulumi-resource-notification-handlers\0", "latin1");
  const pages = Math.ceil(offset / PAGE);
  const directory = Buffer.alloc(44 + identifier.length + pages * 32);
  directory.writeUInt32BE(0xfade0c02, 0);
  directory.writeUInt32BE(directory.length, 4);
  directory.writeUInt32BE(0x20100, 8);
  directory.writeUInt32BE(0x2, 12); // CS_ADHOC
  directory.writeUInt32BE(44 + identifier.length, 16); // hashOffset
  directory.writeUInt32BE(44, 20); // identOffset
  directory.writeUInt32BE(pages, 28);
  directory.writeUInt32BE(offset, 32); // codeLimit
  directory.set([32, 2, 0, 12], 36); // hashSize, SHA-256, platform, log2(page size)
  identifier.copy(directory, 44);
  // Where the signature is, in the load commands that it hashes: __LINKEDIT's file range, and its own.
  const size = 20 + directory.length;
  commands.writeBigUInt64LE(BigInt(offset), 72 + 40);
  commands.writeBigUInt64LE(BigInt(size), 72 + 48);
  commands.writeUInt32LE(offset, 152);
  commands.writeUInt32LE(size, 156);
  const signed = Buffer.concat([header, commands, code]);
  for (let page = 0; page < pages; page += 1)
    createHash("sha256")
      .update(signed.subarray(page * PAGE, Math.min((page + 1) * PAGE, offset)))
      .digest()
      .copy(directory, 44 + identifier.length + page * 32);
  const superBlob = Buffer.alloc(20);
  superBlob.writeUInt32BE(0xfade0cc0, 0);
  superBlob.writeUInt32BE(size, 4);
  superBlob.writeUInt32BE(1, 8);
  superBlob.writeUInt32BE(0, 12); // CSSLOT_CODEDIRECTORY
  superBlob.writeUInt32BE(20, 16);
  return Buffer.concat([signed, superBlob, directory]);
}

/** The code of a Mach-O: a bit over one page, with the blown fuse in it. */
const CODE = Buffer.concat([Buffer.alloc(5000, 0xcc), Buffer.from(`${SEA_FUSE}:1`)]);

/**
 * A PE32+ for x86-64: MZ, the PE header at 0x40, a 240-byte optional header (16 data directories),
 * then `tail`; with a certificate table of `certificate` bytes at the end when given.
 */
function pe(tail: Buffer, certificate?: Buffer): Buffer {
  const head = Buffer.alloc(0x58 + 240);
  head.write("MZ", 0, "latin1");
  head.writeUInt32LE(0x40, 0x3c);
  head.write("PE\0\0", 0x40, "latin1");
  head.writeUInt16LE(0x8664, 0x44);
  head.writeUInt16LE(0x20b, 0x58);
  if (certificate === undefined) return Buffer.concat([head, tail]);
  head.writeUInt32LE(head.length + tail.length, 0x58 + 112 + 32);
  head.writeUInt32LE(certificate.length, 0x58 + 112 + 36);
  return Buffer.concat([head, tail, certificate]);
}

describe("an executable's format and machine", () => {
  it("reads an ELF's machine field", () => {
    expect(inspectExecutable(elf(0x3e))).toMatchObject({
      format: "ELF",
      machine: "x86-64",
      seaInjected: false,
    });
    expect(inspectExecutable(elf(0xb7))).toMatchObject({ format: "ELF", machine: "aarch64" });
  });

  it("refuses a 32-bit ELF and a machine the release has no build for", () => {
    expect(() => inspectExecutable(elf(0x3e, 1))).toThrow("not 64-bit little-endian");
    expect(() => inspectExecutable(elf(0x28))).toThrow("machine 0x28");
  });

  it("reads a PE's machine, and whether it is signed", () => {
    expect(inspectExecutable(pe(Buffer.alloc(16)))).toMatchObject({
      format: "PE",
      machine: "x86-64",
      authenticode: false,
    });
    expect(inspectExecutable(pe(Buffer.alloc(16), Buffer.alloc(24, 1))).authenticode).toBe(true);
  });

  it("sees the fuse that postject blows, and only that one", () => {
    const fuse = (state: string): Buffer => Buffer.concat([elf(0x3e), Buffer.from(`${SEA_FUSE}:${state}`)]);
    expect(inspectExecutable(fuse("1")).seaInjected).toBe(true);
    expect(inspectExecutable(fuse("0")).seaInjected).toBe(false);
  });

  it("refuses anything else", () => {
    expect(() => inspectExecutable(Buffer.from("#!/bin/sh\n"))).toThrow("not an executable");
  });
});

describe("a Mach-O's code signature", () => {
  it("reads the segments and an ad hoc signature whose every page hash matches", () => {
    const info = inspectExecutable(signedMachO(CODE));
    expect(info).toMatchObject({ format: "Mach-O", machine: "x86-64", seaInjected: true });
    expect(info.segments).toEqual(["NODE_SEA", "__LINKEDIT"]);
    expect(info.codeSignature).toEqual({
      adHoc: true,
      identifier: "pulumi-resource-notification-handlers",
      hashType: "sha256",
      pages: 2,
      matches: true,
      inLinkedit: true,
    });
  });

  it("finds a changed byte after signing", () => {
    const file = signedMachO(CODE);
    file[4200] = 0; // the second page
    expect(inspectExecutable(file).codeSignature?.matches).toBe(false);
  });

  it("finds a signature that is not the file's end", () => {
    const file = Buffer.concat([signedMachO(CODE), Buffer.alloc(16)]);
    expect(inspectExecutable(file).codeSignature).toMatchObject({ matches: true, inLinkedit: false });
  });

  it("has no signature without the LC_CODE_SIGNATURE load command", () => {
    const file = signedMachO(CODE);
    file.writeUInt32LE(2, 16); // the segment commands alone
    expect(inspectExecutable(file).codeSignature).toBeUndefined();
  });
});

describe("a PE's Authenticode signature and checksum", () => {
  it("takes the certificate table off the end and clears its directory", () => {
    const signed = pe(Buffer.alloc(64, 7), Buffer.alloc(40, 1));
    const stripped = withoutAuthenticode(signed);
    expect(stripped.length).toBe(signed.length - 40);
    expect(inspectExecutable(stripped).authenticode).toBe(false);
    expect(withoutAuthenticode(pe(Buffer.alloc(64)))).toEqual(pe(Buffer.alloc(64)));
  });

  it("refuses a certificate table that is not the file's end", () => {
    const signed = Buffer.concat([pe(Buffer.alloc(8), Buffer.alloc(16, 1)), Buffer.alloc(4)]);
    expect(() => withoutAuthenticode(signed)).toThrow("not at the end");
  });

  it("computes the checksum as Windows does: 16-bit words summed with carries, plus the length", () => {
    // Words: "MZ" 0x5a4d, e_lfanew 0x0040, "PE" 0x4550, machine 0x8664, magic 0x020b; the sum
    // 0x1_2641 folds to 0x2642, then 0x284d, plus the 328 bytes (0x148).
    const file = pe(Buffer.alloc(0));
    expect(peChecksum(withPeChecksum(file))).toBe(0x2995);
    // The field itself is left out of the sum.
    file.writeUInt32LE(0xdeadbeef, 0x58 + 64);
    expect(peChecksum(withPeChecksum(file))).toBe(0x2995);
  });
});
