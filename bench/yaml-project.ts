/**
 * The Pulumi YAML side of `bench:engine --yaml`: the plugin and the no-op plugin (`noop-plugin.ts`),
 * both built by `scripts/release/build-plugin.ts` into a single executable under the package's plugin name,
 * and the program of N handlers that runs on either.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { HANDLER_RESOURCE_TOKEN, PACKAGE_NAME } from "../provider/tokens";
import { buildPlugin } from "../scripts/release/build-plugin";
import { REPOSITORY_ROOT } from "../scripts/support/user-project";

/** The folders holding each plugin's executable, as a project's `plugins.providers` names them. */
export interface PluginFolders {
  /** The real plugin's folder. */
  provider: string;
  /** Another revision's plugin's folder, when one was given. */
  baseline?: string;
  /** The no-op plugin's folder. */
  noop: string;
  /** Removes both. */
  dispose(): Promise<void>;
}

/**
 * Builds both plugins and unpacks each from its tarball into a folder of its own, with the tarball
 * of another revision's plugin when given.
 */
export async function buildPluginFolders(baselineTarball?: string): Promise<PluginFolders> {
  const real = await buildPlugin();
  const noop = await buildPlugin({
    entry: join(REPOSITORY_ROOT, "bench", "noop-plugin.ts"),
    outDir: join(REPOSITORY_ROOT, "dist", "noop-plugin"),
  });
  const root = await mkdtemp(join(tmpdir(), "notification-handlers-bench-plugins-"));
  const unpack = async (tarball: string, name: string): Promise<string> => {
    const dir = join(root, name);
    await mkdir(dir);
    execFileSync("tar", ["-xzf", tarball, "-C", dir]);
    return dir;
  };
  return {
    provider: await unpack(real, "plugin"),
    ...(baselineTarball === undefined ? {} : { baseline: await unpack(baselineTarball, "baseline") }),
    noop: await unpack(noop, "noop"),
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

/**
 * The `Pulumi.yaml` of a program of `handlers` internal-notification handlers, run with the plugin
 * in `pluginDir` (absolute), so the engine installs and looks up nothing.
 */
export function yamlProgram(handlers: number, pluginDir: string): string {
  const lines = [
    "name: bench",
    "runtime: yaml",
    "plugins:",
    "  providers:",
    `    - name: ${PACKAGE_NAME}`,
    `      path: ${JSON.stringify(pluginDir)}`,
    "resources:",
  ];
  for (let i = 0; i < handlers; i++) {
    lines.push(
      `  h${i}:`,
      `    type: ${HANDLER_RESOURCE_TOKEN}`,
      "    properties:",
      "      type: internal_notification",
      `      name: handler ${i}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
