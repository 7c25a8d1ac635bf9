/**
 * A Pulumi YAML deploy cut off mid-run and recovered with the plugin's executable, on a runner path
 * with no Node.js: the plugin installed from its tarball as examples/yaml-program's README says, a
 * program of 12 handlers, its writes slowed at the fault proxy, `pulumi up` killed with SIGKILL (its
 * process group and the plugin, in a group of its own) once some handlers exist; then `pulumi cancel`,
 * `pulumi-resource-notification-handlers recover` from where `pulumi plugin install` put it, `pulumi
 * up`, and a destroy (docs/interrupted-deploys.md).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import {
  cutOff,
  expectConverged,
  exportState,
  forwarded,
  handlerIds,
  pendingCreates,
  recoveredLines,
  slowStackForTest,
} from "../support/engine/cut-off";
import { pluginRelease } from "../support/stand-ins/registries";
import { listAll, startExampleOnStandIns } from "../support/engine/user-path";

const COUNT = 12;
const PROGRAM = [
  "name: recover-plugin",
  "runtime: yaml",
  "resources:",
  ...Array.from({ length: COUNT }, (_, i) =>
    [
      `  h${i}:`,
      "    type: notification-handlers:index:NotificationHandler",
      `    properties: { type: email, name: Handler ${i}, email: h${i}@example.com }`,
    ].join("\n"),
  ),
  "",
].join("\n");

// As docs/interrupted-deploys.md gives it; then the same with no folder holding `node` on PATH.
const RECOVER = `PLUGIN="\${PULUMI_HOME:-$HOME/.pulumi}/plugins/resource-notification-handlers-v0.2.0/pulumi-resource-notification-handlers"
NO_NODE_PATH=$(printf '%s' "$PATH" | tr ':' '\\n' | while read -r dir; do [ -x "$dir/node" ] || printf '%s:' "$dir"; done)
(
  export PATH="\${NO_NODE_PATH%:}"
  if command -v node; then echo "node is still on PATH" >&2; exit 90; fi
  "$PLUGIN" recover
)`;

describe("a YAML deploy cut off by SIGKILL, recovered with the plugin's executable", () => {
  it("leaves no duplicate and no orphan after cancel, the plugin's recover and up", async () => {
    const timings: string[] = [];
    let mark = Date.now();
    const lap = (what: string): void => {
      timings.push(`${what} ${((Date.now() - mark) / 1000).toFixed(1)} s`);
      mark = Date.now();
    };
    const { session: s, steps } = await startExampleOnStandIns("yaml-program", 5, pluginRelease);
    await s.step(steps[0]!); // npm install, the keys, the servers
    await s.step(steps[1]!); // pulumi plugin install from the release
    await writeFile(join(s.project, "Pulumi.yaml"), PROGRAM);
    const key = await s.variable("KEY");
    const { client, proxy } = await slowStackForTest(s, key);
    lap("setup");

    await cutOff(s, "pulumi up --yes --skip-preview", forwarded(proxy, "POST"));
    lap("up, cut off");
    const made = (await listAll(client)).length;
    expect(made).toBeGreaterThanOrEqual(4);
    await s.mustSh("pulumi cancel --yes");

    const state = await exportState(s);
    const recorded = handlerIds(state);
    const pending = pendingCreates(state);

    const recover = await s.mustSh(RECOVER);
    lap("recover");
    const imported = recoveredLines(recover.stdout, made, recorded.length, pending.length);
    for (const line of imported) expect(line).toContain("notification-handlers:index:NotificationHandler::h");

    await s.mustSh("pulumi up --yes --skip-preview");
    lap("up");
    await expectConverged(s, client, COUNT, key);

    await s.mustSh("pulumi destroy --yes --skip-preview");
    lap("destroy");
    expect(await listAll(client)).toEqual([]);
    process.stderr.write(
      `[cli-recover-plugin] ${made} of ${COUNT} made before the kill, ${recorded.length} recorded, ` +
        `${imported.length} imported; ${timings.join(", ")}\n`,
    );
  }, 120_000);
});
