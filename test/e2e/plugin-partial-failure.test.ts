/**
 * The engine records what a plugin's partial failure names: a Pulumi YAML program through the plugin
 * (its executable extracted from the tarball into a folder `plugins.providers` names), run with the
 * Pulumi CLI. The create is stored, then every read that would verify it loses its answer; the up
 * fails, and the state holds the handler with its id. The next up converges with no duplicate. The
 * gRPC detail itself is proved at the plugin's level: `integration/plugin-partial-failure`.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { mustRun, runCommand, scratchFolder, type CommandResult } from "../../scripts/user-project";
import {
  extractPlugin,
  fileBackendEnvironment,
  type TestServer,
  startServer,
} from "../support/engine/stacks";

const PROGRAM = `name: partial-failure
runtime: yaml
plugins:
  providers:
    - name: notification-handlers
      path: plugin-bin
resources:
  inbox:
    type: notification-handlers:index:NotificationHandler
    properties:
      type: internal_notification
      name: Inbox
outputs:
  id: \${inbox.handlerId}
`;

/** A resource of an exported stack. */
interface StateResource {
  urn: string;
  type: string;
  id?: string;
  outputs?: Record<string, unknown>;
}

let server: TestServer | undefined;
let root = "";
let failReads = true;

beforeAll(async () => {
  // Reads of single handlers are handled, then their connection is cut while armed: a lost answer.
  server = await startServer({
    cutAfterHandling: (method, path) => failReads && method === "GET" && /\/\d+$/.test(path),
  });
  root = await scratchFolder("plugin-partial-failure");
});

afterAll(async () => {
  await server?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("a create whose read-back fails, through the plugin under the engine", () => {
  it("leaves the handler in the state, and the next up converges with no duplicate", async () => {
    const key = await server!.newKey();
    const project = join(root, "project");
    const env = await fileBackendEnvironment(root, "local-only");
    await extractPlugin(project, env);
    await writeFile(join(project, "Pulumi.yaml"), PROGRAM);
    const options = { cwd: project, env };
    const pulumi = (...args: string[]): Promise<CommandResult> => runCommand("pulumi", args, options);
    await mustRun("pulumi", ["stack", "init", "test"], options);
    await mustRun("pulumi", ["config", "set", "notification-handlers:baseUrl", server!.url], options);
    await mustRun("pulumi", ["config", "set", "--secret", "notification-handlers:apiKey", key], options);
    // One retry of the read, not six, so the test does not wait out the backoff.
    await mustRun("pulumi", ["config", "set", "notification-handlers:maxRetries", "1"], options);

    const failed = await pulumi("up", "--yes", "--skip-preview");
    const [made, ...others] = await server!.handlers(key);
    expect(made, "the create reached the server").toBeDefined();
    expect(others).toEqual([]);
    expect(failed.code).not.toBe(0);
    expect(`${failed.stdout}${failed.stderr}`).toContain(`handler ${made!.id} exists, but`);

    const exported = await mustRun("pulumi", ["stack", "export"], options);
    const { deployment } = JSON.parse(exported.stdout) as { deployment: { resources: StateResource[] } };
    const handlers = deployment.resources.filter(
      (r) => r.type === "notification-handlers:index:NotificationHandler",
    );
    expect(handlers.map((r) => [r.urn.split("::").at(-1), r.id])).toEqual([["inbox", String(made!.id)]]);
    expect(handlers[0]?.outputs).toMatchObject({ handlerId: made!.id, name: "Inbox" });
    expect(exported.stdout.includes(key), "the API key in the exported state").toBe(false);

    failReads = false;
    await mustRun("pulumi", ["up", "--yes", "--skip-preview"], options);
    const output = await mustRun("pulumi", ["stack", "output", "id"], options);
    expect(output.stdout.trim()).toBe(String(made!.id));
    expect((await server!.handlers(key)).map((h) => h.id)).toEqual([made!.id]);
    await mustRun("pulumi", ["preview", "--expect-no-changes"], options);
  });
});
