/**
 * examples/adopt-existing on the user's path: the README makes two handlers through the API as the web
 * UI would, then the program takes both over with the real Pulumi CLI, creating nothing.
 */
import { describe, expect, it } from "vitest";

import { listAll, startExample } from "../support/engine/user-path";

const WEBHOOK_URL = "https://example.com/hooks/deploy"; // as the README sets it

describe("examples/adopt-existing, run as its README says with the Pulumi CLI", () => {
  it("takes over the handlers the README makes, with the same ids and no create", async () => {
    const { session, steps } = await startExample("adopt-existing", 3);
    await session.step(steps[0]!);
    const { key, client } = await session.account();

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
