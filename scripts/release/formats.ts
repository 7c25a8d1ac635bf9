/**
 * What an executable of the release is, read from its bytes: the format (ELF, Mach-O, PE) and the
 * machine its header names, whether a single-executable blob was injected (the fuse postject
 * flips), and for a Mach-O its code signature, checked page by page as macOS checks it. Also the one
 * change a Windows executable needs before injection: its Authenticode signature taken off.
 *
 * `npm run release` checks each executable it writes with these, and so does `npm run release:check`.
 * Offsets are those of the formats' own headers (elf.h, mach-o/loader.h and the code-signing blobs of
 * Apple's cs_blobs.h, Microsoft's PE format).
 */
import { createHash } from "node:crypto";

import { SEA_FUSE } from "./build-plugin";

/** An executable's format, as `file` names it. */
export type ExecutableFormat = "ELF" | "Mach-O" | "PE";

/** The machine an executable's header names. */
export type Machine = "x86-64" | "aarch64";

/** A Mach-O's code signature: its first code directory, and whether every page hash matches. */
export interface CodeSignature {
  /** Signed with no identity (`CS_ADHOC`): what Apple silicon asks of every executable at least. */
  adHoc: boolean;
  identifier: string;
  /** The digest of the page hashes: `sha256`, or `sha1` in old signatures. */
  hashType: string;
  /** How many pages it hashes. */
  pages: number;
  /** Every page hash matches the file, and the hashed part ends where the signature starts. */
  matches: boolean;
  /** The signature ends the file, inside the `__LINKEDIT` segment, as macOS's validation wants. */
  inLinkedit: boolean;
}

/** What {@link inspectExecutable} reads. */
export interface ExecutableInfo {
  format: ExecutableFormat;
  machine: Machine;
  /** The single-executable fuse is blown: postject injected a blob, so Node.js runs it. */
  seaInjected: boolean;
  /** A Mach-O's `LC_SEGMENT_64` names (`__TEXT`, `NODE_SEA`, ...); empty for the others. */
  segments: string[];
  /** A Mach-O's signature, when it has an `LC_CODE_SIGNATURE` load command. */
  codeSignature?: CodeSignature;
  /** A PE's Authenticode signature is present (the certificate table of its data directories). */
  authenticode?: boolean;
}

/** `ELF x86-64`, `Mach-O aarch64`: how reports name an executable. */
export const describeExecutable = (info: Pick<ExecutableInfo, "format" | "machine">): string =>
  `${info.format} ${info.machine}`;

const ELF_MACHINES: Record<number, Machine> = { 0x3e: "x86-64", 0xb7: "aarch64" };
const MACHO_CPUS: Record<number, Machine> = { 0x01000007: "x86-64", 0x0100000c: "aarch64" };
const PE_MACHINES: Record<number, Machine> = { 0x8664: "x86-64", 0xaa64: "aarch64" };

/** Reads an executable's format and machine (see the file comment); throws for anything else. */
export function inspectExecutable(bytes: Buffer): ExecutableInfo {
  const seaInjected = bytes.includes(`${SEA_FUSE}:1`);
  if (bytes.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) {
    // 64-bit, little-endian: the only ELF kind the release has.
    if (bytes[4] !== 2 || bytes[5] !== 1)
      throw new Error("an ELF executable that is not 64-bit little-endian");
    return {
      format: "ELF",
      machine: known(ELF_MACHINES, bytes.readUInt16LE(18), "ELF"),
      seaInjected,
      segments: [],
    };
  }
  if (bytes.length >= 32 && bytes.readUInt32LE(0) === 0xfeedfacf) return inspectMachO(bytes, seaInjected);
  if (bytes.subarray(0, 2).toString("latin1") === "MZ") {
    const pe = peHeaders(bytes);
    return {
      format: "PE",
      machine: known(PE_MACHINES, bytes.readUInt16LE(pe.coff + 4), "PE"),
      seaInjected,
      segments: [],
      authenticode: bytes.readUInt32LE(pe.securityDirectory + 4) > 0,
    };
  }
  throw new Error(
    `not an executable the release builds (starts with ${bytes.subarray(0, 4).toString("hex")})`,
  );
}

function known(table: Record<number, Machine>, value: number, format: string): Machine {
  const machine = table[value];
  if (machine === undefined) throw new Error(`a ${format} executable for machine 0x${value.toString(16)}`);
  return machine;
}

const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;

function inspectMachO(bytes: Buffer, seaInjected: boolean): ExecutableInfo {
  const machine = known(MACHO_CPUS, bytes.readUInt32LE(4), "Mach-O");
  const commands = bytes.readUInt32LE(16);
  const segments: { name: string; end: number }[] = [];
  let signature: { offset: number; size: number } | undefined;
  let at = 32; // after mach_header_64
  for (let i = 0; i < commands; i += 1) {
    const command = bytes.readUInt32LE(at);
    const size = bytes.readUInt32LE(at + 4);
    if (command === LC_SEGMENT_64)
      segments.push({
        name: cString(bytes.subarray(at + 8, at + 24)),
        end: Number(bytes.readBigUInt64LE(at + 40) + bytes.readBigUInt64LE(at + 48)), // fileoff + filesize
      });
    if (command === LC_CODE_SIGNATURE)
      signature = { offset: bytes.readUInt32LE(at + 8), size: bytes.readUInt32LE(at + 12) };
    at += size;
  }
  const info: ExecutableInfo = {
    format: "Mach-O",
    machine,
    seaInjected,
    segments: segments.map(({ name }) => name),
  };
  if (signature === undefined) return info;
  const linkedit = segments.find(({ name }) => name === "__LINKEDIT");
  const end = signature.offset + signature.size;
  return {
    ...info,
    codeSignature: {
      ...readCodeSignature(bytes, signature.offset, signature.size),
      inLinkedit: end === bytes.length && linkedit?.end === bytes.length,
    },
  };
}

const cString = (bytes: Buffer): string => {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString("latin1");
};

const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSSLOT_CODEDIRECTORY = 0;
const CS_ADHOC = 0x2;
const HASH_TYPES: Record<number, { name: string; digest: string; size: number }> = {
  1: { name: "sha1", digest: "sha1", size: 20 },
  2: { name: "sha256", digest: "sha256", size: 32 },
  3: { name: "sha256-truncated", digest: "sha256", size: 20 },
  4: { name: "sha384", digest: "sha384", size: 48 },
};

/** The code directory of an embedded signature (big-endian, unlike the Mach-O around it), checked. */
function readCodeSignature(bytes: Buffer, offset: number, size: number): Omit<CodeSignature, "inLinkedit"> {
  const blob = bytes.subarray(offset, offset + size);
  if (blob.length < 12 || blob.readUInt32BE(0) !== CSMAGIC_EMBEDDED_SIGNATURE)
    throw new Error("LC_CODE_SIGNATURE points at no embedded signature");
  let directory: Buffer | undefined;
  for (let i = 0; i < blob.readUInt32BE(8); i += 1) {
    const type = blob.readUInt32BE(12 + i * 8);
    const at = blob.readUInt32BE(16 + i * 8);
    if (type === CSSLOT_CODEDIRECTORY) directory = blob.subarray(at, at + blob.readUInt32BE(at + 4));
  }
  if (directory === undefined || directory.readUInt32BE(0) !== CSMAGIC_CODEDIRECTORY)
    throw new Error("the code signature has no code directory");
  const flags = directory.readUInt32BE(12);
  const hashOffset = directory.readUInt32BE(16);
  const identifier = cString(directory.subarray(directory.readUInt32BE(20)));
  const pages = directory.readUInt32BE(28);
  const codeLimit = directory.readUInt32BE(32);
  const hashSize = directory.readUInt8(36);
  const hashType = HASH_TYPES[directory.readUInt8(37)];
  const pageSize = 2 ** directory.readUInt8(39);
  if (hashType === undefined || hashType.size !== hashSize)
    throw new Error(`a code directory with hash type ${directory.readUInt8(37)} of ${hashSize} bytes`);
  let matches = codeLimit === offset && pages === Math.ceil(codeLimit / pageSize);
  for (let page = 0; matches && page < pages; page += 1) {
    const start = page * pageSize;
    const digest = createHash(hashType.digest)
      .update(bytes.subarray(start, Math.min(start + pageSize, codeLimit)))
      .digest()
      .subarray(0, hashSize);
    const at = hashOffset + page * hashSize;
    matches = digest.equals(directory.subarray(at, at + hashSize));
  }
  return { adHoc: (flags & CS_ADHOC) !== 0, identifier, hashType: hashType.name, pages, matches };
}

/** Where a PE's headers are: the COFF header, the optional header's checksum and security directory. */
function peHeaders(bytes: Buffer): { coff: number; checksum: number; securityDirectory: number } {
  const coff = bytes.readUInt32LE(0x3c);
  if (bytes.subarray(coff, coff + 4).toString("latin1") !== "PE\0\0")
    throw new Error("an MZ file with no PE header");
  const optional = coff + 24;
  // PE32+ (0x20b) only: the 64-bit executables the release has.
  if (bytes.readUInt16LE(optional) !== 0x20b) throw new Error("a PE executable that is not PE32+");
  // The fifth data directory, the certificate table, after the optional header's 112 bytes of fields.
  return { coff, checksum: optional + 64, securityDirectory: optional + 112 + 4 * 8 };
}

/**
 * A PE executable without its Authenticode signature: the certificate table cut off the end of the
 * file and its data directory cleared. Injecting a blob breaks the signature, and Node's SEA
 * documentation removes it first; a broken one would say the file was tampered with.
 */
export function withoutAuthenticode(bytes: Buffer): Buffer {
  const { securityDirectory } = peHeaders(bytes);
  const offset = bytes.readUInt32LE(securityDirectory);
  const size = bytes.readUInt32LE(securityDirectory + 4);
  if (size === 0) return bytes;
  // The table is the file's end; it is not loaded, so nothing else points into it.
  if (offset + size !== bytes.length) throw new Error("the certificate table is not at the end of the file");
  const stripped = Buffer.from(bytes.subarray(0, offset));
  stripped.writeUInt32LE(0, securityDirectory);
  stripped.writeUInt32LE(0, securityDirectory + 4);
  return withPeChecksum(stripped);
}

/**
 * A PE executable with its header's checksum computed again (the 16-bit sum with carries of the
 * file, the checksum field left out, plus the length): Windows checks it only for drivers, but a
 * wrong one marks a file as altered after linking.
 */
export function withPeChecksum(bytes: Buffer): Buffer {
  const { checksum } = peHeaders(bytes);
  let sum = 0;
  for (let at = 0; at < bytes.length; at += 2) {
    if (at === checksum || at === checksum + 2) continue;
    sum += at + 1 < bytes.length ? bytes.readUInt16LE(at) : bytes[at]!;
    sum = (sum & 0xffff) + (sum >>> 16);
  }
  const result = Buffer.from(bytes);
  result.writeUInt32LE(((sum & 0xffff) + (sum >>> 16) + bytes.length) >>> 0, checksum);
  return result;
}

/** The checksum a PE's header holds. */
export const peChecksum = (bytes: Buffer): number => bytes.readUInt32LE(peHeaders(bytes).checksum);
