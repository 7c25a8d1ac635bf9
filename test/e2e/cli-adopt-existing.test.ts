/**
 * examples/adopt-existing on the user's path: the README makes two handlers through the API as the web
 * UI would, then the program takes both over with the real Pulumi CLI, creating nothing.
 */
import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { listAll, runItSteps, UserSession } from "../support/engine/user-path";

const WEBHOOK_URL = "https://example.com/hooks/deploy"; // as the README sets it

describe("examples/adopt-existing, run as its README says with the Pulumi CLI", () => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;

  afterAll(async () => {
    await client?.close();
    await session?.dispose();
  });

  it("takes over the handlers the README makes, with the same ids and no create", async () => {
    const pathFirst = inject("enginePath");
    const steps = await runItSteps("adopt-existing");
    expect(steps).toHaveLength(3);
    session = await UserSession.start("adopt-existing", { pathFirst });

    await session.step(steps[0]!);
    const key = await session.variable("KEY");
    client = new NotificationHandlersClient({ baseURL: session.url!, apiKey: key, maxRetries: 0 });

    await session.step(steps[1]!);
    const before = await listAll(client);
    expect(before.map((h) => [h.type, h.name])).toEqual([
      ["email", "Ops email"],
      ["webhook", "hook"],
    ]);
    expect(await session.variable("WEBHOOK_ID")).toBe(String(before[1]!.id));

    const [up] = await session.step(steps[2]!);
    expect(up!.stdout).toMatch(/3 created/); // the stack and the two resources; no handler is made
    const after = await listAll(client);
    expect(after.map((h) => h.id)).toEqual(before.map((h) => h.id));
    expect(after[0]).toMatchObject({ name: "Ops email", settings: { email: "ops@example.com" } });
    expect(after[1]).toMatchObject({ name: "Deploy webhook", settings: { webhook: WEBHOOK_URL } });
    const outputs = JSON.parse((await session.mustSh("pulumi stack output --json")).stdout) as Record<
      string,
      number
    >;
    expect(outputs).toEqual({ opsId: before[0]!.id, webhookId: before[1]!.id });

    await session.mustSh("pulumi preview --expect-no-changes");
    const state = await session.mustSh("pulumi stack export", false);
    for (const secret of [key, WEBHOOK_URL]) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(session.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }

    await session.mustSh("pulumi destroy --yes");
    expect(await listAll(client)).toEqual([]);
  });
});
