/**
 * The export's output folder, written so that a failed export leaves it as it was: missing, empty,
 * or (with `--force`) holding the files it held, with their contents. The folder is written in place,
 * not staged elsewhere and renamed, because `--force` writes beside files that are already there and
 * the Pulumi CLI keeps the stack's config file in the project folder it runs in.
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The file operations the folder needs; unit tests pass an in-memory one. */
export interface FolderFs {
  /** Resolves to the first folder it made, or undefined when `path` was there. */
  mkdir(path: string, options: { recursive: true }): Promise<string | undefined>;
  readdir(path: string): Promise<string[]>;
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: string | Buffer): Promise<void>;
  rm(path: string, options: { recursive: true; force: true }): Promise<void>;
}

const nodeFs: FolderFs = { mkdir, readdir, readFile, writeFile, rm };

/**
 * The Pulumi CLI's stack config files: a `--force` export over an existing stack rewrites the one the
 * folder may already hold.
 */
const STACK_CONFIG_FILE = /^Pulumi\..+\.ya?ml$/;

/** The output folder as it was when opened, and what the export has written to it since. */
export class OutputFolder {
  /** Its content before, for each file the export replaces. */
  private readonly saved = new Map<string, Buffer>();
  /** The outermost folder the export made, when `dir` was missing. */
  private made: string | undefined;

  private constructor(
    private readonly dir: string,
    /** Its entries before, or undefined when it was missing. */
    private readonly before: readonly string[] | undefined,
    private readonly fs: FolderFs,
  ) {}

  /** Notes what `dir` holds now, to put it back on {@link restore}. */
  static async open(dir: string, fs: FolderFs = nodeFs): Promise<OutputFolder> {
    const before = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    const folder = new OutputFolder(dir, before, fs);
    for (const name of before ?? []) if (STACK_CONFIG_FILE.test(name)) await folder.save(name);
    return folder;
  }

  /** Writes `files` (name to content), making the folder when missing. */
  async write(files: Readonly<Record<string, string>>): Promise<void> {
    const made = await this.fs.mkdir(this.dir, { recursive: true });
    this.made ??= made;
    for (const [name, content] of Object.entries(files)) {
      if (this.before?.includes(name)) await this.save(name);
      await this.fs.writeFile(join(this.dir, name), content);
    }
  }

  /**
   * Puts the folder back as it was when opened: what was not there is removed (the stack's config
   * file the Pulumi CLI wrote included), and each replaced file gets its content back.
   */
  async restore(): Promise<void> {
    if (this.before === undefined) {
      await this.fs.rm(this.made ?? this.dir, { recursive: true, force: true });
      return;
    }
    const kept = new Set(this.before);
    for (const name of await this.fs.readdir(this.dir))
      if (!kept.has(name)) await this.fs.rm(join(this.dir, name), { recursive: true, force: true });
    for (const [name, content] of this.saved) await this.fs.writeFile(join(this.dir, name), content);
  }

  private async save(name: string): Promise<void> {
    if (this.saved.has(name)) return;
    // A folder of that name is no file to save: writing over it fails, and it stays as it is.
    const content = await this.fs.readFile(join(this.dir, name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EISDIR") return undefined;
      throw error;
    });
    if (content !== undefined) this.saved.set(name, content);
  }
}
