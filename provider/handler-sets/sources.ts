/**
 * A handler set's files on disk: the patterns that name them, and reading them.
 *
 * Patterns are paths relative to a folder, where a segment may hold `*` (any characters but `/`), `?`
 * (one character) and `[...]` (one of a class), and a segment `**` stands for any number of folders.
 * Small and synchronous on purpose: Node's own `fs.globSync` warns that it is experimental on the
 * Node.js 22 releases this package supports.
 */
import { type Dirent, readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

import type { SetProblem, SetSource } from "./format";

const MAGIC = /[*?[]/;

/** The files (not folders) that match `pattern` under `cwd`, as paths relative to it, sorted. */
export function matchFiles(pattern: string, cwd: string): string[] {
  const absolute = pattern.startsWith("/");
  const found = new Set<string>();
  walk(
    absolute ? "/" : cwd,
    absolute ? "/" : "",
    pattern.split("/").filter((s) => s !== ""),
    found,
  );
  return [...found].sort();
}

function walk(cwd: string, prefix: string, rest: readonly string[], found: Set<string>): void {
  const at = (name: string): string => (prefix === "" ? name : join(prefix, name));
  if (rest.length === 0) {
    if (prefix !== "" && isFile(join(cwd, prefix))) found.add(prefix);
    return;
  }
  const [segment, ...after] = rest as [string, ...string[]];
  if (segment === "**") {
    walk(cwd, prefix, after, found);
    for (const dir of entries(join(cwd, prefix)).filter((e) => e.isDirectory()))
      walk(cwd, at(dir.name), rest, found);
  } else if (!MAGIC.test(segment)) {
    walk(cwd, at(segment), after, found);
  } else {
    const matcher = segmentRegExp(segment);
    for (const entry of entries(join(cwd, prefix))) {
      // Hidden files match only a pattern that names the dot, as in a shell.
      if (entry.name.startsWith(".") && !segment.startsWith(".")) continue;
      if (matcher.test(entry.name)) walk(cwd, at(entry.name), after, found);
    }
  }
}

/** Reads `files` (relative to `cwd`); one that cannot be read is a problem naming it and why. */
export function readSetSources(
  files: Iterable<string>,
  cwd: string,
): { sources: SetSource[]; problems: SetProblem[] } {
  const sources: SetSource[] = [];
  const problems: SetProblem[] = [];
  for (const file of files) {
    try {
      sources.push({ file, text: readFileSync(resolve(cwd, file), "utf8") });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const rule = code === "ENOENT" ? "no such file" : `cannot be read (${code ?? String(error)})`;
      problems.push({ file, path: "", rule });
    }
  }
  return { sources, problems };
}

/** One segment's pattern as a regular expression over a file name. */
function segmentRegExp(segment: string): RegExp {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    const close = c === "[" ? segment.indexOf("]", i + 2) : -1;
    if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (close > 0) {
      source += `[${segment.slice(i + 1, close).replace(/^!/, "^")}]`;
      i = close;
    } else source += c.replace(/[.+^${}()|\\\]]/g, "\\$&").replace("[", "\\[");
  }
  return new RegExp(`^${source}$`);
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
