/**
 * The packages as `npm pack` made them: what a Pulumi program installs carries no server, and the
 * server's package carries everything its command runs.
 */
import { execFileSync } from "node:child_process";

import { describe, expect, inject, it } from "vitest";

interface Manifest {
  dependencies?: Record<string, string>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

/** The files of a packed tarball and its package.json. */
function packed(spec: string): { files: string[]; manifest: Manifest } {
  const tarball = spec.replace(/^file:/, "");
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n");
  const manifest = JSON.parse(
    execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }),
  ) as Manifest;
  return { files, manifest };
}

describe("the packed packages", () => {
  it("the provider's pulls in no server, Fastify or PostgreSQL client", () => {
    const { files, manifest } = packed(inject("packages")["pulumi-notification-handlers"]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["undici", "yaml", "zod"]);
    expect(manifest.bin).toEqual({ "notification-handlers": "dist/cli/main.js" });
    expect(files.filter((f) => f.startsWith("package/dist/server/"))).toEqual([]);
    expect(files).toContain("package/dist/provider/runtime.js");
  });

  it("the server's has its command, what it imports and its own Node.js floor", () => {
    const { files, manifest } = packed(inject("packages")["notification-handlers-server"]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["fastify", "pg", "zod"]);
    expect(manifest.bin).toEqual({ "notification-handlers-server": "dist/server/main.js" });
    expect(manifest.engines).toEqual({ node: ">=22.13.0" });
    for (const file of ["dist/server/main.js", "dist/sdk/client/catalog.js", "dist/cli/io.js"]) {
      expect(files).toContain(`package/${file}`);
    }
    expect(files.filter((f) => f.startsWith("package/dist/provider/"))).toEqual([]);
  });
});
