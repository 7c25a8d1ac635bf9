/**
 * examples/multi-account on the user's path: two reference servers stand in for a staging and a
 * production site, and the README's "Run it" steps, run as written with the real Pulumi CLI, put
 * handlers on both, change both behind Pulumi's back and repair both; then destroy empties both.
 */
import { describe, expect, it } from "vitest";

import type { NotificationHandlersClient } from "../../sdk/client/client";
import { NotFoundError } from "../../sdk/client/core/errors";
import { listAll, startExample } from "../support/engine/user-path";

const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it

type Outputs = Record<
  "stagingOncallId" | "stagingSlackId" | "productionOncallId" | "productionSlackId" | "productionPagerId",
  number
>;

describe("examples/multi-account, run as its README says with the Pulumi CLI", () => {
  it("puts handlers on both sites, finds drift on both and repairs it, and destroys both", async () => {
    const { session, steps } = await startExample("multi-account", 4);
    await session.step(steps[0]!);
    const stagingUrl = session.urls.get("8080");
    const productionUrl = session.urls.get("8081");
    expect(stagingUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(productionUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(productionUrl).not.toBe(stagingUrl);
    const { key: stagingKey, client: staging } = await session.account("STAGING_KEY", "8080");
    const { key: productionKey, client: production } = await session.account("PRODUCTION_KEY", "8081");

    const [up] = await session.step(steps[1]!);
    expect(up!.stdout).toMatch(/6 created/); // the stack and five handlers
    const ids = JSON.parse((await session.mustSh("pulumi stack output --json")).stdout) as Outputs;
    const summary = async (client: NotificationHandlersClient): Promise<string[]> =>
      (await listAll(client)).map((h) => `${h.id} ${h.type} ${h.name}`).sort();
    expect(await summary(staging)).toEqual(
      [`${ids.stagingOncallId} email On-call email`, `${ids.stagingSlackId} slack Team Slack`].sort(),
    );
    expect(await summary(production)).toEqual(
      [
        `${ids.productionOncallId} email On-call email`,
        `${ids.productionSlackId} slack Team Slack`,
        `${ids.productionPagerId} twilio Pager SMS`,
      ].sort(),
    );
    expect((await staging.notificationHandlers.retrieve(ids.stagingSlackId)).settings).toEqual({
      slack: SLACK_WEBHOOK,
    });

    await session.step(steps[2]!);
    expect((await staging.notificationHandlers.retrieve(ids.stagingOncallId)).name).toBe(
      "Renamed on staging",
    );
    await expect(production.notificationHandlers.retrieve(ids.productionPagerId)).rejects.toBeInstanceOf(
      NotFoundError,
    );

    const [repair] = await session.step(steps[3]!);
    const printed = repair!.stdout;
    expect(printed).toContain(
      `handler ${ids.stagingOncallId} ("Renamed on staging", in the code "On-call email") differs from the program`,
    );
    expect(printed).toContain(`handler ${ids.productionPagerId} ("Pager SMS") no longer exists in the API`);
    expect((await staging.notificationHandlers.retrieve(ids.stagingOncallId)).name).toBe("On-call email");
    const pagers = (await listAll(production)).filter((h) => h.type === "twilio");
    expect(pagers.map((h) => h.name)).toEqual(["Pager SMS"]);
    expect(pagers[0]?.id).not.toBe(ids.productionPagerId);
    expect(await listAll(staging)).toHaveLength(2);

    const state = await session.mustSh("pulumi stack export", false);
    expect(state.stdout).toContain("notification-handlers:NotificationHandler");
    for (const secret of [stagingKey, productionKey, SLACK_WEBHOOK]) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(session.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }

    await session.mustSh("pulumi destroy --yes");
    expect(await listAll(staging)).toEqual([]);
    expect(await listAll(production)).toEqual([]);
  });
});
