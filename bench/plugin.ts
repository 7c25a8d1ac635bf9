/**
 * `npm run bench:plugin`: the provider plugin's executable as a user installs it. Builds the tarball
 * (`npm run build:plugin`'s step) and the no-op plugin's, then prints the tarball's size and the
 * executable's; over `--rounds N` starts (default 10), the time from spawn to the port on stdout and
 * the resident memory then and after a GetSchema call, with an empty environment (no Node.js on
 * PATH); and the CPU time of serving a no-change preview of `--handlers N` handlers (default 1000),
 * beside the no-op plugin (`plugin-calls.ts`).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { PLUGIN_EXECUTABLE } from "../provider/tokens";
import { pluginTarball } from "../scripts/release/build-plugin";
import { type CallsCpu, canMeasureProcessCpu, measureCalls, median } from "./plugin-calls";
import { startPlugin } from "./plugin-start";
import { buildPluginFolders } from "./yaml-project";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "10" }, handlers: { type: "string", default: "1000" } },
  });
  const rounds = Number(values.rounds);
  const handlers = Number(values.handlers);
  const plugins = await buildPluginFolders();
  try {
    const tarball = pluginTarball();
    const binary = join(plugins.provider, PLUGIN_EXECUTABLE);
    const runs = [];
    for (let i = 0; i < rounds; i++) runs.push(await startPlugin(binary));
    const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    process.stdout.write(
      [
        `| figure | value |`,
        `| --- | --- |`,
        `| tarball | ${mib(statSync(tarball).size)} |`,
        `| executable | ${mib(statSync(binary).size)} |`,
        `| start to port (median of ${rounds}) | ${median(runs.map((r) => r.startMs)).toFixed(0)} ms |`,
        `| resident memory at the port | ${median(runs.map((r) => r.idleMiB)).toFixed(1)} MiB |`,
        `| resident memory after GetSchema | ${median(runs.map((r) => r.servedMiB)).toFixed(1)} MiB |`,
        "",
      ].join("\n"),
    );
    if (!canMeasureProcessCpu()) return;
    const cpu = await measureCalls(
      { provider: binary, noop: join(plugins.noop, PLUGIN_EXECUTABLE) },
      handlers,
      rounds,
    );
    const row = (label: string, key: keyof CallsCpu): string =>
      `| ${label} | ${cpu.provider[key]} ms | ${cpu.noop[key]} ms | ${cpu.provider[key] - cpu.noop[key]} ms |`;
    process.stdout.write(
      [
        "",
        `CPU time of the process serving a no-change preview of ${handlers} handlers (median of ${rounds}):`,
        "",
        "| step | the plugin | no-op plugin | difference |",
        "| --- | --- | --- | --- |",
        row("start, to the port", "start"),
        row("CheckConfig and Configure", "configure"),
        row(`${handlers} Check and Diff pairs`, "calls"),
        "",
      ].join("\n"),
    );
  } finally {
    await plugins.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
