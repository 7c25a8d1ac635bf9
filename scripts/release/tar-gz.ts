/**
 * The release's tar.gz archives, written by the build itself so that the same files make the same
 * bytes on any machine: entries in name order, each stamped with the release's time, owned by uid and
 * gid 0 with no owner names, mode 0755 or 0644 alone; ustar headers (POSIX.1-1988), a gzip member
 * with no time or file name in its header. A machine's `tar` would write its clock, its user and its
 * umask. Also reads one back, for the Python sdist that setuptools writes with the files' own times.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip, gunzipSync } from "node:zlib";

/** One entry: a directory, or a file whose bytes are in memory or in a file on disk. */
export interface TarEntry {
  /** Its path inside the archive, `/`-separated; a directory's ends with `/`. */
  name: string;
  /** Whether anyone may run it: mode 0755, else 0644 (directories are 0755). */
  executable: boolean;
  /** Its bytes, or the file holding them; none for a directory. */
  data?: Buffer | { file: string };
}

const BLOCK = 512;

/** An octal number field of `length` bytes: zero-padded digits, then a NUL. */
function octal(value: number, length: number): string {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`${value} does not fit a tar field of ${length} bytes`);
  return `${digits.padStart(length - 1, "0")}\0`;
}

/**
 * The name and prefix fields of a ustar header: a path over 100 bytes is split at a `/`, leaving a
 * name (a directory's trailing `/` is no place to split: its name field would be empty).
 */
function splitName(name: string): { name: string; prefix: string } {
  if (Buffer.byteLength(name) <= 100) return { name, prefix: "" };
  for (let at = name.indexOf("/"); at !== -1; at = name.indexOf("/", at + 1)) {
    const [prefix, rest] = [name.slice(0, at), name.slice(at + 1)];
    if (rest !== "" && Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(rest) <= 100)
      return { name: rest, prefix };
  }
  throw new Error(`${name}: a path too long for a ustar header`);
}

function header(entry: TarEntry, size: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const directory = entry.name.endsWith("/");
  const { name, prefix } = splitName(entry.name);
  const write = (text: string, offset: number): void => void block.write(text, offset, "utf8");
  write(name, 0);
  write(octal(directory || entry.executable ? 0o755 : 0o644, 8), 100);
  write(octal(0, 8), 108); // uid
  write(octal(0, 8), 116); // gid
  write(octal(size, 12), 124);
  write(octal(mtime, 12), 136);
  write(" ".repeat(8), 148); // the checksum counts its own field as spaces
  write(directory ? "5" : "0", 156);
  write("ustar\0", 257);
  write("00", 263);
  write(prefix, 345);
  let sum = 0;
  for (const byte of block) sum += byte;
  write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

/** The blocks of the archive: each entry's header and bytes, padded to blocks, then two empty blocks. */
async function* blocks(entries: readonly TarEntry[], mtime: number): AsyncGenerator<Buffer> {
  for (const entry of entries) {
    const data = entry.data;
    const size = data === undefined ? 0 : Buffer.isBuffer(data) ? data.length : (await stat(data.file)).size;
    yield header(entry, size, mtime);
    if (data === undefined) continue;
    if (Buffer.isBuffer(data)) yield data;
    else for await (const chunk of createReadStream(data.file)) yield chunk as Buffer;
    if (size % BLOCK !== 0) yield Buffer.alloc(BLOCK - (size % BLOCK));
  }
  yield Buffer.alloc(2 * BLOCK);
}

/** Writes `entries`, sorted by name, to `file` as a tar.gz stamped `mtime` (seconds since 1970). */
export async function writeTarGz(file: string, entries: readonly TarEntry[], mtime: number): Promise<void> {
  const names = entries.map((entry) => entry.name);
  if (new Set(names).size !== names.length) throw new Error(`${file}: an entry twice`);
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
  // Node's gzip header carries no time and no name: nothing of the machine or the moment.
  await pipeline(Readable.from(blocks(sorted, mtime)), createGzip(), createWriteStream(file));
}

/** A NUL-terminated text field of a header. */
function field(block: Buffer, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? length : end).toString("utf8");
}

/** The `path` of a pax extended header's records (`<length> path=<value>\n`), if it gives one. */
function paxPath(records: Buffer): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < records.length) {
    const space = records.indexOf(0x20, at);
    const length = Number(records.toString("utf8", at, space));
    const record = records.toString("utf8", space + 1, at + length - 1);
    if (record.startsWith("path=")) path = record.slice("path=".length);
    at += length;
  }
  return path;
}

/**
 * The files and directories of a tar.gz, in the archive's order. Links and devices are refused: an
 * sdist holds neither.
 */
export async function readTarGz(file: string): Promise<TarEntry[]> {
  const archive = gunzipSync(await readFile(file));
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= archive.length;) {
    const block = archive.subarray(at, at + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    const size = parseInt(field(block, 124, 12).trim() || "0", 8);
    const type = field(block, 156, 1) || "0";
    const data = archive.subarray(at + BLOCK, at + BLOCK + size);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      longName = paxPath(data);
      continue;
    }
    if (type === "g") continue; // global pax records: times and owners, which the release fixes
    const prefix = field(block, 345, 155);
    const name = longName ?? (prefix === "" ? "" : `${prefix}/`) + field(block, 0, 100);
    longName = undefined;
    const executable = (parseInt(field(block, 100, 8), 8) & 0o111) !== 0;
    if (type === "5") entries.push({ name: name.endsWith("/") ? name : `${name}/`, executable: true });
    else if (type === "0") entries.push({ name, executable, data: Buffer.from(data) });
    else throw new Error(`${file}: ${name} is of tar type ${type}, not a file or a directory`);
  }
  return entries;
}
