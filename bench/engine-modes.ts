/**
 * What `bench:engine` runs in each of its modes: the program of N handlers for each kind (this
 * provider, or one that does nothing) as a project folder's files and stack configuration, and the
 * names its tables give the kinds and the processes.
 *
 * The TypeScript mode runs a Node.js program with the dynamic provider beside a no-op dynamic
 * provider; `--yaml` a Pulumi YAML program on the plugin beside the no-op plugin (`yaml-project.ts`).
 */
import type { DescendantCpuTimes } from "./process-cpu";
import { yamlProgram } from "./yaml-project";

/** This checkout's provider, another revision's (`--baseline`), or the one that does nothing. */
export type Kind = "provider" | "baseline" | "noop";

/** The program, the same shape for both providers; the no-op's provider makes nothing. */
const PROGRAM = `"use strict";
const pulumi = require("@pulumi/pulumi");
const config = new pulumi.Config("bench");
const handlers = config.requireNumber("handlers");
const args = (i) => ({ type: "internal_notification", name: \`handler \${i}\` });
if (config.require("provider") === "provider") {
  const { NotificationHandler } = require("pulumi-notification-handlers");
  for (let i = 0; i < handlers; i++) new NotificationHandler(\`h\${i}\`, args(i));
} else {
  const noop = {
    create: (inputs) => Promise.resolve({ id: \`\${inputs.name}-\${Date.now()}\`, outs: inputs }),
  };
  for (let i = 0; i < handlers; i++)
    new pulumi.dynamic.Resource(noop, \`h\${i}\`, args(i), undefined, "bench", "NoopHandler");
}
`;

/** CPU milliseconds by process. */
export type CpuTimes = DescendantCpuTimes & { server: number };

/** Stack configuration: plain values, and secrets. */
export type Config = Record<string, string | { secret: string }>;

/** What a project folder holds: its files, and its stack's configuration. */
export interface ProjectSpec {
  files: Record<string, string>;
  config: Config;
}

/** The project of a kind's program of N handlers, given the provider's configuration. */
type ProjectMaker = (kind: Kind, handlers: number, provider: Config) => ProjectSpec;

/** The TypeScript program; the no-op's dynamic provider takes no configuration. */
const typescriptProject: ProjectMaker = (kind, handlers, provider) => ({
  files: {
    "Pulumi.yaml": "name: bench\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n",
    "package.json": '{ "name": "bench", "private": true, "main": "index.js" }\n',
    "index.js": PROGRAM,
  },
  config: {
    "bench:handlers": String(handlers),
    "bench:provider": kind === "noop" ? "noop" : "provider",
    ...(kind === "noop" ? {} : provider),
  },
});

/** The Pulumi YAML program on the plugin in each kind's folder; every kind takes the same configuration. */
const yamlProject =
  (pluginDirs: Partial<Record<Kind, string>>): ProjectMaker =>
  (kind, handlers, provider) => {
    const dir = pluginDirs[kind];
    if (dir === undefined) throw new Error(`no plugin for ${kind}`);
    return { files: { "Pulumi.yaml": yamlProgram(handlers, dir) }, config: provider };
  };

/** How this run makes its projects and names its kinds and processes. */
export interface Mode {
  make: ProjectMaker;
  /** What runs beside what, for the first table's heading. */
  heading: string;
  /** Each kind's column heading (the baseline's is its revision's, see `engine.ts`). */
  label: Record<Kind, string>;
  /** The CPU table's rows, of the roles this mode's processes take. */
  cpuRows: [keyof CpuTimes, string][];
}

export const TYPESCRIPT: Mode = {
  make: typescriptProject,
  heading: "this provider beside a no-op dynamic provider",
  label: { provider: "this provider", baseline: "baseline", noop: "no-op provider" },
  cpuRows: [
    ["engine", "the engine (`pulumi`)"],
    ["provider", "the dynamic-provider process"],
    ["program", "the program (`node .../cmd/run`)"],
    ["languageHost", "the language host"],
    ["server", "the reference server"],
    ["other", "plugin launchers"],
  ],
};

export const yamlMode = (pluginDirs: Partial<Record<Kind, string>>): Mode => ({
  make: yamlProject(pluginDirs),
  heading: "a Pulumi YAML program through the plugin beside a no-op plugin",
  label: { provider: "the plugin", baseline: "baseline plugin", noop: "no-op plugin" },
  cpuRows: [
    ["engine", "the engine (`pulumi`)"],
    ["provider", "the plugin (`pulumi-resource-notification-handlers`)"],
    ["languageHost", "the YAML language host (`pulumi-language-yaml`)"],
    ["server", "the reference server"],
    ["other", "other processes"],
  ],
});
