/**
 * A deploy cut off mid-run, on the user's path: a project of 12 handlers, its writes slowed at the
 * fault proxy, `pulumi up` killed with SIGKILL (its process group and the plugins it started, as when
 * a CI runner is lost) once some handlers exist; then the documented recovery
 * (docs/interrupted-deploys.md): `pulumi cancel`, `notification-handlers recover`, `pulumi up`. Then
 * a destroy cut off the same way, and `pulumi destroy` again.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy";
import { cutOff, exportState, handlerIds } from "./cut-off";
import { listAll, runItSteps, UserSession } from "./user-path";

const COUNT = 12;
const PROGRAM = `import { NotificationHandler } from "pulumi-notification-handlers";

for (let i = 0; i < ${COUNT}; i++) {
  new NotificationHandler(\`h\${i}\`, { type: "email", name: \`Handler \${i}\`, email: \`h\${i}@example.com\` });
}
`;

describe("a deploy cut off by SIGKILL, recovered with notification-handlers recover", () => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;
  let proxy: FaultProxy | undefined;

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await session?.dispose();
  });

  it("leaves no duplicate and no orphan after cancel, recover and up; a cut-off destroy finishes", async () => {
    const steps = await runItSteps("quickstart");
    session = await UserSession.start("quickstart", { pathFirst: inject("enginePath") });
    const s = session;
    await writeFile(join(s.project, "index.ts"), PROGRAM);
    await s.step(steps[0]!); // npm install, the key, the server
    const key = await s.variable("KEY");
    client = new NotificationHandlersClient({ baseURL: s.url!, apiKey: key, maxRetries: 0 });
    // Every request through the proxy answers 0.8 s late (well under the client's timeout), so the
    // handlers exist in the API while their creates are still in flight.
    proxy = await startFaultProxy(s.url!, { rate: 1, kinds: ["slow"], slowMs: 800 });
    await s.mustSh(
      [
        "export PULUMI_CONFIG_PASSPHRASE=local-only",
        "pulumi login --local",
        "pulumi stack init dev",
        `pulumi config set notification-handlers:baseUrl ${proxy.url}`,
        'pulumi config set --secret notification-handlers:apiKey "$KEY"',
      ].join("\n"),
    );

    const api = async (): Promise<number> => (await listAll(client!)).length;
    // Watched at the proxy, not by polling the API, which would spend the key's rate limit.
    const forwarded = (method: string) => (): Promise<boolean> =>
      Promise.resolve(proxy!.faults.filter((f) => f.startsWith(`fault slow ${method} `)).length >= 4);
    await cutOff(s, "pulumi up --yes --skip-preview", forwarded("POST"));
    const made = await api();
    expect(made).toBeGreaterThanOrEqual(4);
    expect(made).toBeLessThan(COUNT);

    // The file backend keeps the dead update's lock: the next up is refused until `pulumi cancel`.
    const locked = await s.sh("pulumi up --yes");
    expect(locked.code).not.toBe(0);
    expect(locked.stderr).toMatch(/the stack is currently locked by 1 lock/);
    await s.mustSh("pulumi cancel --yes");

    const state = await exportState(s);
    const recorded = state.deployment.resources.filter((r) => r.type.endsWith(":NotificationHandler"));
    const pending = state.deployment.pending_operations ?? [];
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((p) => p.type === "creating")).toBe(true);

    const recover = await s.mustSh("npx notification-handlers recover");
    const lines = recover.stdout.trim().split("\n");
    const imported = lines.filter((l) => l.startsWith("imported "));
    expect(lines.filter((l) => l.startsWith("refused "))).toEqual([]);
    // Every handler in the API is now in the state: recorded by the cut-off up, or imported.
    expect(recorded.length + imported.length).toBe(made);
    expect(lines.length).toBe(pending.length + 1);
    expect(lines.at(-1)).toMatch(/^state written \(\d+ imported, \d+ cleared\)$/);

    await s.mustSh("pulumi up --yes --skip-preview");
    const handlers = await listAll(client);
    expect(handlers).toHaveLength(COUNT);
    expect(new Set(handlers.map((h) => h.name)).size).toBe(COUNT);
    const after = await exportState(s);
    expect(handlerIds(after)).toEqual(handlers.map((h) => h.id));
    expect(after.deployment.pending_operations ?? []).toEqual([]);
    expect(JSON.stringify(after).includes(key), "the API key in the state").toBe(false);
    expect(s.transcript.join("\n").includes(key), "the API key in the output").toBe(false);

    // A destroy cut off: handlers gone from the API but still in the state. The next destroy deletes
    // the rest, and a handler already gone counts as deleted.
    await cutOff(s, "pulumi destroy --yes --skip-preview", forwarded("DELETE"));
    const left = await api();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(COUNT - 4);
    await s.mustSh("pulumi cancel --yes");
    await s.mustSh("pulumi destroy --yes --skip-preview");
    expect(await listAll(client)).toEqual([]);
  }, 120_000);
});
