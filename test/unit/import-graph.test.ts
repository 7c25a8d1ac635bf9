/**
 * No import circles among the project's own modules, type-only imports included: shared types sit in
 * small leaf modules, so no two files import each other. The imports are read with the TypeScript
 * compiler (every `import`, `export ... from`, `import type`, `import("...")` and `require("...")`)
 * and resolved as tsconfig.json resolves them.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "..", "..");
/** The project's own modules: these folders (test/ apart: nothing imports it) and the root index.ts. */
const FOLDERS = ["sdk", "server", "cli", "provider", "scripts", "bench"];

/** The project's modules, as paths relative to the root with `/` separators. */
function projectFiles(): string[] {
  const files = ["index.ts"];
  for (const folder of FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })) {
      if (entry.endsWith(".ts") && !entry.endsWith(".d.ts"))
        files.push(`${folder}/${entry.split(sep).join("/")}`);
    }
  }
  return files.sort();
}

/** Every module specifier a file names, type-only and dynamic imports included. */
function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node)) {
      const [argument] = node.arguments;
      const callee = node.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require");
      if (loads && argument !== undefined && ts.isStringLiteralLike(argument)) found.push(argument.text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each project module and the project modules it imports. */
function importGraph(): Map<string, Set<string>> {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  if (config === undefined) throw new Error("tsconfig.json could not be read");
  const files = projectFiles();
  const own = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of specifiersOf(file)) {
      const resolved = ts.resolveModuleName(
        specifier,
        join(ROOT, file),
        config.options,
        ts.sys,
      ).resolvedModule;
      if (resolved === undefined || resolved.isExternalLibraryImport === true) continue;
      const target = relative(ROOT, resolved.resolvedFileName).split(sep).join("/");
      if (own.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Every elementary circle, each written from its alphabetically first file back to that file. */
function circles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const nodes = [...graph.keys()].sort();
  for (const [index, start] of nodes.entries()) {
    // A circle is found from its first file only: later files alone are searched beyond it.
    const allowed = new Set(nodes.slice(index + 1));
    const walk = (node: string, path: string[]): void => {
      for (const next of graph.get(node) ?? []) {
        if (next === start) found.push([...path, start].join(" -> "));
        else if (allowed.has(next) && !path.includes(next)) walk(next, [...path, next]);
      }
    };
    walk(start, [start]);
  }
  return found.sort();
}

describe("the import graph", () => {
  const graph = importGraph();
  const found = circles(graph);

  it("reads every kind of import, type-only ones included", () => {
    expect(graph.get("sdk/client/index.ts")).toContain("sdk/client/client.ts"); // export ... from
    expect(graph.get("sdk/client/client.ts")).toContain("sdk/client/core/transport.ts"); // import
    expect(graph.get("sdk/client/core/transport.ts")).toContain("sdk/client/core/api-request.ts"); // import type
    expect(graph.get("server/open-repository.ts")).toContain("server/repository-postgres.ts"); // import()
    expect(graph.get("index.ts")).toContain("provider/index.ts");
  });

  it("finds a circle where there is one, type-only or not", () => {
    const sample = new Map([
      ["a.ts", new Set(["b.ts"])],
      ["b.ts", new Set(["c.ts"])],
      ["c.ts", new Set(["a.ts"])],
      ["d.ts", new Set(["a.ts"])],
    ]);
    expect(circles(sample)).toEqual(["a.ts -> b.ts -> c.ts -> a.ts"]);
  });

  it("has no circle", () => {
    expect(found).toEqual([]);
  });
});
