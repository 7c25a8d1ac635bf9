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

import type { NotificationHandlersClient } from "../../sdk/client/client";
import type { FaultProxy } from "../support/fault-proxy";
import {
  cutOff,
  expectConverged,
  exportState,
  forwarded,
  handlerIds,
  pendingCreates,
  recoveredLines,
  slowStack,
} from "./cut-off";
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
    ({ client, proxy } = await slowStack(s, key));

    const api = async (): Promise<number> => (await listAll(client!)).length;
    await cutOff(s, "pulumi up --yes --skip-preview", forwarded(proxy, "POST"));
    const made = await api();
    expect(made).toBeGreaterThanOrEqual(4);
    expect(made).toBeLessThan(COUNT);

    // The file backend keeps the dead update's lock: the next up is refused until `pulumi cancel`.
    const locked = await s.sh("pulumi up --yes");
    expect(locked.code).not.toBe(0);
    expect(locked.stderr).toMatch(/the stack is currently locked by 1 lock/);
    await s.mustSh("pulumi cancel --yes");

    const state = await exportState(s);
    const recorded = handlerIds(state).length;
    const pending = pendingCreates(state);

    const recover = await s.mustSh("npx notification-handlers recover");
    recoveredLines(recover.stdout, made, recorded, pending.length);

    await s.mustSh("pulumi up --yes --skip-preview");
    await expectConverged(s, client, COUNT, key);

    // A destroy cut off: handlers gone from the API but still in the state. The next destroy deletes
    // the rest, and a handler already gone counts as deleted.
    await cutOff(s, "pulumi destroy --yes --skip-preview", forwarded(proxy, "DELETE"));
    const left = await api();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(COUNT - 4);
    await s.mustSh("pulumi cancel --yes");
    await s.mustSh("pulumi destroy --yes --skip-preview");
    expect(await listAll(client)).toEqual([]);
  }, 120_000);
});
