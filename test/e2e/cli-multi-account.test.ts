/**
 * examples/multi-account on the user's path: two reference servers stand in for a staging and a
 * production site, and the README's "Run it" steps, run as written with the real Pulumi CLI, put
 * handlers on both, change both behind Pulumi's back and repair both; then destroy empties both.
 */
import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { NotFoundError } from "../../sdk/client/errors";
import { listAll, runItSteps, UserSession } from "../support/engine/user-path";

const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it

type Outputs = Record<
  "stagingOncallId" | "stagingSlackId" | "productionOncallId" | "productionSlackId" | "productionPagerId",
  number
>;

describe("examples/multi-account, run as its README says with the Pulumi CLI", () => {
  let session: UserSession | undefined;
  let staging: NotificationHandlersClient | undefined;
  let production: NotificationHandlersClient | undefined;

  afterAll(async () => {
    await staging?.close();
    await production?.close();
    await session?.dispose();
  });

  it("puts handlers on both sites, finds drift on both and repairs it, and destroys both", async () => {
    const pathFirst = inject("enginePath");
    const steps = await runItSteps("multi-account");
    expect(steps).toHaveLength(4);
    session = await UserSession.start("multi-account", { pathFirst });

    await session.step(steps[0]!);
    const stagingKey = await session.variable("STAGING_KEY");
    const productionKey = await session.variable("PRODUCTION_KEY");
    const stagingUrl = session.urls.get("8080");
    const productionUrl = session.urls.get("8081");
    expect(stagingUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(productionUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(productionUrl).not.toBe(stagingUrl);
    staging = new NotificationHandlersClient({ baseURL: stagingUrl!, apiKey: stagingKey, maxRetries: 0 });
    production = new NotificationHandlersClient({
      baseURL: productionUrl!,
      apiKey: productionKey,
      maxRetries: 0,
    });

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
    expect(printed).toContain(`handler ${ids.stagingOncallId} ("On-call email") differs from the program`);
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
