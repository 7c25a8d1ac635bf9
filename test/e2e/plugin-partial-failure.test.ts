/**
 * The engine records what a plugin's partial failure names: a Pulumi YAML program through the plugin
 * (its executable extracted from the tarball into a folder `plugins.providers` names), run with the
 * Pulumi CLI. The create is stored, then every read that would verify it loses its answer; the up
 * fails, and the state holds the handler with its id. The next up converges with no duplicate. The
 * gRPC detail itself is proved at the plugin's level: `integration/plugin-partial-failure`.
 */
import { describe, expect, it } from "vitest";

import { pluginProjectForTest, providerConfig, serverForTest } from "../support/engine/stacks";

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

describe("a create whose read-back fails, through the plugin under the engine", () => {
  it("leaves the handler in the state, and the next up converges with no duplicate", async () => {
    let failReads = true;
    // Reads of single handlers are handled, then their connection is cut while armed: a lost answer.
    const server = await serverForTest({
      cutAfterHandling: (method, path) => failReads && method === "GET" && /\/\d+$/.test(path),
    });
    const key = await server.newKey();
    const { pulumi, mustPulumi } = await pluginProjectForTest(
      { program: PROGRAM },
      {
        ...providerConfig(server.url, key),
        // One retry of the read, not six, so the test does not wait out the backoff.
        "notification-handlers:maxRetries": "1",
      },
    );

    const failed = await pulumi("up", "--yes", "--skip-preview");
    const [made, ...others] = await server.handlers(key);
    expect(made, "the create reached the server").toBeDefined();
    expect(others).toEqual([]);
    expect(failed.code).not.toBe(0);
    expect(`${failed.stdout}${failed.stderr}`).toContain(`handler ${made!.id} exists, but`);

    const exported = await mustPulumi("stack", "export");
    const { deployment } = JSON.parse(exported.stdout) as { deployment: { resources: StateResource[] } };
    const handlers = deployment.resources.filter(
      (r) => r.type === "notification-handlers:index:NotificationHandler",
    );
    expect(handlers.map((r) => [r.urn.split("::").at(-1), r.id])).toEqual([["inbox", String(made!.id)]]);
    expect(handlers[0]?.outputs).toMatchObject({ handlerId: made!.id, name: "Inbox" });
    expect(exported.stdout.includes(key), "the API key in the exported state").toBe(false);

    failReads = false;
    await mustPulumi("up", "--yes", "--skip-preview");
    const output = await mustPulumi("stack", "output", "id");
    expect(output.stdout.trim()).toBe(String(made!.id));
    expect((await server.handlers(key)).map((h) => h.id)).toEqual([made!.id]);
    await mustPulumi("preview", "--expect-no-changes");
  });
});
