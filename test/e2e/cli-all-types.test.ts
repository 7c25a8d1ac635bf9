/**
 * examples/all-types on the user's path: the packed package installed into a copy of the example
 * outside the repository, the README's "Run it" steps run as written with the real Pulumi CLI.
 */
import { describe, expect, it } from "vitest";

import { HANDLER_TYPE_NAMES } from "../../sdk/client/domain/catalog";
import { listAll, startExample } from "../support/engine/user-path";

const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it

describe("examples/all-types, run as its README says with the Pulumi CLI", () => {
  it("makes one handler of each type, changes nothing on the next preview, and destroys them", async () => {
    const { session, steps } = await startExample("all-types", 2);

    await session.step(steps[0]!);
    const { key, client } = await session.account();

    const [up] = await session.step(steps[1]!);
    expect(up!.stdout).toMatch(/13 created/);
    const handlers = await listAll(client);
    expect(handlers.map((h) => h.type).sort()).toEqual([...HANDLER_TYPE_NAMES].sort());
    expect(handlers.find((h) => h.type === "slack")?.settings).toMatchObject({ slack: SLACK_WEBHOOK });
    const outputs = await session.mustSh("pulumi stack output handlerIds --json");
    expect((JSON.parse(outputs.stdout) as number[]).sort((a, b) => a - b)).toEqual(handlers.map((h) => h.id));

    await session.mustSh("pulumi preview --expect-no-changes");
    const state = await session.mustSh("pulumi stack export", false);
    for (const secret of [key, SLACK_WEBHOOK]) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(session.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }

    await session.mustSh("pulumi destroy --yes");
    expect(await listAll(client)).toEqual([]);
  });
});
