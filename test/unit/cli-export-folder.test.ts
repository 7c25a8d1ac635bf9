/**
 * The export's output folder: whatever fails after the first write, `restore` leaves it as it was,
 * missing, empty, or holding its own files with their contents. On an in-memory file system.
 */
import { describe, expect, it } from "vitest";

import { type FolderFs, OutputFolder } from "../../cli/export-folder";

/** Folders and files by absolute path; `failWrite` makes writing that path fail. */
class MemoryFs implements FolderFs {
  readonly entries = new Map<string, Buffer | "folder">([["/", "folder"]]);
  failWrite: string | undefined;

  constructor(files: Record<string, string> = {}) {
    for (const [path, content] of Object.entries(files)) {
      for (let dir = parentOf(path); !this.entries.has(dir); dir = parentOf(dir))
        this.entries.set(dir, "folder");
      this.entries.set(path, Buffer.from(content));
    }
  }

  mkdir(path: string): Promise<string | undefined> {
    let first: string | undefined;
    const missing: string[] = [];
    for (let dir = path; !this.entries.has(dir); dir = parentOf(dir)) missing.unshift(dir);
    for (const dir of missing) {
      this.entries.set(dir, "folder");
      first ??= dir;
    }
    return Promise.resolve(first);
  }

  readdir(path: string): Promise<string[]> {
    if (this.entries.get(path) !== "folder") return Promise.reject(errno("ENOENT"));
    return Promise.resolve(
      [...this.entries.keys()]
        .filter((p) => p !== "/" && parentOf(p) === path)
        .map((p) => p.slice(path.length + 1)),
    );
  }

  readFile(path: string): Promise<Buffer> {
    const entry = this.entries.get(path);
    if (entry === undefined) return Promise.reject(errno("ENOENT"));
    if (entry === "folder") return Promise.reject(errno("EISDIR"));
    return Promise.resolve(entry);
  }

  writeFile(path: string, data: string | Buffer): Promise<void> {
    if (path === this.failWrite) return Promise.reject(errno("ENOSPC"));
    if (this.entries.get(parentOf(path)) !== "folder") return Promise.reject(errno("ENOENT"));
    if (this.entries.get(path) === "folder") return Promise.reject(errno("EISDIR"));
    this.entries.set(path, Buffer.from(data));
    return Promise.resolve();
  }

  rm(path: string): Promise<void> {
    for (const p of [...this.entries.keys()])
      if (p === path || p.startsWith(`${path}/`)) this.entries.delete(p);
    return Promise.resolve();
  }

  /** Every path with its content, folders as "folder": what "as it was" compares. */
  snapshot(): Record<string, string> {
    return Object.fromEntries(
      [...this.entries].map(([p, e]) => [p, e === "folder" ? "folder" : e.toString("utf8")]),
    );
  }
}

const parentOf = (path: string): string => path.slice(0, path.lastIndexOf("/")) || "/";
const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

const PROJECT = {
  "Pulumi.yaml": "name: handlers\n",
  "index.ts": "// program\n",
  "README.md": "# handlers\n",
};

describe("OutputFolder", () => {
  it("removes a folder it made, with the folders above it that it made", async () => {
    const fs = new MemoryFs({ "/work/notes.txt": "mine" });
    const before = fs.snapshot();
    const folder = await OutputFolder.open("/work/new/handlers", fs);
    await folder.write(PROJECT);
    expect(fs.snapshot()["/work/new/handlers/index.ts"]).toBe("// program\n");
    await folder.restore();
    expect(fs.snapshot()).toEqual(before);
  });

  it("keeps a folder that was there and empty, and empties it", async () => {
    const fs = new MemoryFs();
    await fs.mkdir("/work/handlers");
    const before = fs.snapshot();
    const folder = await OutputFolder.open("/work/handlers", fs);
    await folder.write(PROJECT);
    // What the Pulumi CLI writes when it makes the stack.
    await fs.writeFile("/work/handlers/Pulumi.prod.yaml", "encryptionsalt: x\n");
    await folder.restore();
    expect(fs.snapshot()).toEqual(before);
  });

  it("after --force, gives replaced files their content back and removes only what is new", async () => {
    const fs = new MemoryFs({
      "/work/handlers/keep.txt": "mine",
      "/work/handlers/README.md": "my notes",
      "/work/handlers/Pulumi.dev.yaml": "config:\n  handlers:a: b\n",
      "/work/handlers/node_modules/x/index.js": "module",
    });
    const before = fs.snapshot();
    const folder = await OutputFolder.open("/work/handlers", fs);
    await folder.write(PROJECT);
    // A --force export over the existing stack dev rewrites its config file.
    await fs.writeFile("/work/handlers/Pulumi.dev.yaml", "config:\n  handlers:c: d\n");
    expect(fs.snapshot()["/work/handlers/README.md"]).toBe("# handlers\n");
    await folder.restore();
    expect(fs.snapshot()).toEqual(before);
  });

  it("puts the folder back after a write that failed half-way", async () => {
    const fs = new MemoryFs({ "/work/handlers/Pulumi.yaml": "name: mine\n" });
    const before = fs.snapshot();
    const folder = await OutputFolder.open("/work/handlers", fs);
    fs.failWrite = "/work/handlers/README.md";
    await expect(folder.write(PROJECT)).rejects.toThrow("ENOSPC");
    expect(fs.snapshot()["/work/handlers/index.ts"]).toBe("// program\n");
    await folder.restore();
    expect(fs.snapshot()).toEqual(before);
  });

  it("leaves a folder of a project file's name as it is", async () => {
    const fs = new MemoryFs({ "/work/handlers/index.ts/a.ts": "mine" });
    const before = fs.snapshot();
    const folder = await OutputFolder.open("/work/handlers", fs);
    await expect(folder.write(PROJECT)).rejects.toThrow("EISDIR");
    await folder.restore();
    expect(fs.snapshot()).toEqual(before);
  });
});
