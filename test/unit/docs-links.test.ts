/**
 * The repository's own account of the API is docs/api.md, and code cites its sections as
 * `docs/api.md#<anchor>`. These tests fail when such a citation, or a relative link of a Markdown
 * file, points at a file or an anchor that does not exist, and when a file still cites the shared
 * spec files, their parts or an issue number instead.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

/** The files scanned: text the project writes (code, tests, docs, configuration). */
const SCANNED = /\.(?:[cm]?[jt]s|md|json|ya?ml)$/;
/** Generated or vendored text that cites nothing. */
const NOT_SCANNED = new Set(["package-lock.json"]);

/**
 * What must no longer be cited: the shared spec files, their two parts, and issue numbers. Written so
 * that this file's own source does not match them.
 */
const FORBIDDEN_CITATIONS = [/\b(?:CONTRACT|SERVICE)\.md\b/i, /\bPart [AB]\b/i, /\bissues? #?\d+/i];

/** `docs/<name>.md#<anchor>`, wherever it is written. */
const DOCS_CITATION = /\bdocs\/([\w.-]+\.md)#([\w-]+)/g;

/** An HTML element's `id` or `name`: `<a id="rate-limit"></a>`. */
const EXPLICIT_ANCHOR = /<[a-z][^>]*\s(?:id|name)\s*=\s*["']([^"']+)["']/gi;

/** A Markdown link or image: `[text](target)`, `[text](<target> "title")`. */
const MARKDOWN_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** Tracked files, relative to the root with `/`; a walk when git is not there (an unpacked tarball). */
function trackedFiles(): string[] {
  try {
    const out = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" });
    return out.split("\0").filter((path) => path !== "" && existsSync(join(ROOT, path)));
  } catch {
    return walk(ROOT);
  }
}

function walk(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (["node_modules", "dist", ".git"].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...walk(path));
    else if (entry.isFile()) files.push(relative(ROOT, path).split(sep).join("/"));
  }
  return files;
}

const scannedFiles = trackedFiles()
  .filter((path) => SCANNED.test(path) && !NOT_SCANNED.has(path))
  .sort();
const markdownFiles = scannedFiles.filter((path) => path.endsWith(".md"));

const texts = new Map<string, string>();
function textOf(path: string): string {
  let text = texts.get(path);
  if (text === undefined) {
    text = readFileSync(join(ROOT, path), "utf8");
    texts.set(path, text);
  }
  return text;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** The text with fenced code blocks blanked, line breaks kept so line numbers still hold. */
function withoutCodeBlocks(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) {
        fence = marker;
        return "";
      }
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length)
          fence = undefined;
        return "";
      }
      return line;
    })
    .join("\n");
}

/** A heading's anchor as GitHub makes it: the text lowercased, punctuation dropped, blanks as `-`. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/<[^>]*>/g, "") // inline HTML, such as an explicit anchor
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link keeps its text
    .replace(/[`*]/g, "");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\s-]/gu, "")
    .replace(/\s/g, "-");
}

/** A Markdown file's anchors: explicit `id`/`name` attributes, and heading slugs (`-1`, `-2` for repeats). */
function anchorsOf(markdown: string): Set<string> {
  const prose = withoutCodeBlocks(markdown);
  const anchors = new Set<string>();
  for (const match of prose.matchAll(EXPLICIT_ANCHOR)) {
    anchors.add(match[1] ?? "");
  }
  const seen = new Map<string, number>();
  for (const match of prose.matchAll(/^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/gm)) {
    const slug = githubSlug(match[1] ?? "");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (anchors === undefined) {
    anchors = anchorsOf(textOf(path));
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/** Why `target#anchor` (a path from the root) does not resolve, or undefined when it does. */
function brokenTarget(target: string, anchor: string | undefined): string | undefined {
  const full = join(ROOT, target);
  if (!existsSync(full)) return `${target} does not exist`;
  if (anchor === undefined || anchor === "") return undefined;
  if (!statSync(full).isFile() || !target.endsWith(".md"))
    return `${target} is not a Markdown file with anchors`;
  return anchorsOfFile(target).has(anchor) ? undefined : `${target} has no anchor #${anchor}`;
}

describe("docs links", () => {
  it("finds the files to check", () => {
    expect(scannedFiles).toContain("docs/api.md");
    expect(markdownFiles).toContain("README.md");
  });

  it("every docs/<name>.md#<anchor> cited in code, tests and Markdown exists", () => {
    const problems: string[] = [];
    let citations = 0;
    for (const path of scannedFiles) {
      const text = textOf(path);
      for (const match of text.matchAll(DOCS_CITATION)) {
        citations++;
        const broken = brokenTarget(`docs/${match[1]}`, match[2]);
        if (broken !== undefined)
          problems.push(`${path}:${lineOf(text, match.index)}: ${match[0]}: ${broken}`);
      }
    }
    expect(problems).toEqual([]);
    expect(citations).toBeGreaterThan(0);
  });

  it("every relative link of a Markdown file points at a file and anchor that exist", () => {
    const problems: string[] = [];
    for (const path of markdownFiles) {
      // Inline code spans are examples, not links.
      const prose = withoutCodeBlocks(textOf(path)).replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
      for (const match of prose.matchAll(MARKDOWN_LINK)) {
        const link = match[1] ?? "";
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("//")) continue; // http:, mailto:, ...
        const [file = "", anchor] = link.split("#", 2);
        const target = file === "" ? path : join(dirname(path), decodeURI(file)).split(sep).join("/");
        const broken = brokenTarget(target, anchor);
        if (broken !== undefined)
          problems.push(`${path}:${lineOf(prose, match.index)}: (${link}): ${broken}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("no Markdown file repeats an explicit anchor", () => {
    const problems: string[] = [];
    for (const path of markdownFiles) {
      const ids = [...withoutCodeBlocks(textOf(path)).matchAll(EXPLICIT_ANCHOR)];
      const seen = new Set<string>();
      for (const [, id = ""] of ids) {
        if (seen.has(id)) problems.push(`${path}: #${id} twice`);
        seen.add(id);
      }
    }
    expect(problems).toEqual([]);
  });

  it("nothing cites the shared spec files, their parts or issue numbers: docs/api.md does", () => {
    const problems: string[] = [];
    for (const path of scannedFiles) {
      textOf(path)
        .split("\n")
        .forEach((line, index) => {
          if (FORBIDDEN_CITATIONS.some((pattern) => pattern.test(line))) {
            problems.push(`${path}:${index + 1}: ${line.trim()}`);
          }
        });
    }
    expect(problems).toEqual([]);
  });
});

describe("the table of Pulumi's resource options and commands", () => {
  const OPTIONS = [
    "ignoreChanges",
    "replaceOnChanges",
    "import",
    "customTimeouts",
    "aliases",
    "protect",
    "retainOnDelete",
    "deletedWith",
    "dependsOn",
    "additionalSecretOutputs",
    "hideDiffs",
    "replaceWith",
    "replacementTrigger",
    "transforms",
    "pulumi refresh",
    "up --refresh",
    "--target",
    "pulumi state move",
    "pulumi import",
  ];
  /** The table after its heading: from the comment that opens it to the first line after it. */
  const tableOf = (path: string): string => {
    const text = textOf(path);
    const start = text.indexOf("<!-- The same table in docs/provider.md and docs/plugin.md");
    const end = text.indexOf("\n\n## ", start);
    return start < 0 || end < 0 ? "" : text.slice(start, end);
  };

  it("is the same in docs/provider.md and docs/plugin.md, a row each with both providers' answers", () => {
    const table = tableOf("docs/provider.md");
    expect(tableOf("docs/plugin.md")).toBe(table);
    const rows = table.split("\n").filter((line) => line.startsWith("| `"));
    for (const option of OPTIONS) {
      const row = rows.find((r) => (r.split(" | ")[0] ?? "").includes(`\`${option}`));
      expect(row, option).toBeDefined();
      const answers = row!.split(" | ").slice(1);
      expect(
        answers.filter((cell) => cell.trim().length > 10),
        option,
      ).toHaveLength(2);
    }
  });
});

describe("githubSlug", () => {
  it.each([
    ["The Pulumi engine", "the-pulumi-engine"],
    ["Several sites, or accounts, in one program", "several-sites-or-accounts-in-one-program"],
    ['<a id="list"></a>List handlers', "list-handlers"],
    ["`updateStrategy`: in-place or replace?", "updatestrategy-in-place-or-replace"],
    ["snake_case and [a link](x.md)", "snake_case-and-a-link"],
  ])("%s -> %s", (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });
});
