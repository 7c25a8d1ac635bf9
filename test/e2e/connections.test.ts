/**
 * Several accounts in one stack, under the real engine, with two reference servers at once (a
 * "staging" and a "production" site): handlers on the provider's configured site and on explicit
 * connections, adoption and lookups through a connection, a handler moved from one site to the other,
 * a rotated key, refresh, and destroy; the keys never in the clear in the state file or the output.
 * Drift on both sites, found and repaired, is proved on the user's path (cli-multi-account).
 */
import type * as PulumiModule from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  type TestServer,
  nativeRequire,
  pkg,
  providerConfig,
  stackForTest,
  startServer,
} from "../support/engine/stacks";
import { storyStep } from "../support/story-step";

const STAGING_HOOK = "https://example.com/hooks/staging-secret-path";
const PRODUCTION_HOOK = "https://example.com/hooks/production-secret-path";
/** A `connection` as the state file stores a secret: Pulumi's secret signature and ciphertext. */
const CONNECTION_ENCRYPTED =
  /"connection":\{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","ciphertext":"/g;

describe("one stack, two sites", () => {
  let staging: TestServer;
  let production: TestServer;
  let stagingKey = "";
  let productionKey = "";
  let rotatedKey = "";
  /** The ids of the handlers made by hand before the tests. */
  let seeded = { stagingExisting: 0, manual1: 0, manual2: 0, productionExisting: 0 };

  /** A site's connection from the program's stack config: `<site>Url`, and `<site>Key` as a secret. */
  const siteFromConfig = (site: string): { baseUrl: string; apiKey: PulumiModule.Output<string> } => {
    const config = new (nativeRequire("@pulumi/pulumi") as typeof PulumiModule).Config();
    return { baseUrl: config.require(`${site}Url`), apiKey: config.requireSecret(`${site}Key`) };
  };

  const names = async (server: TestServer, key: string): Promise<string[]> =>
    (await server.handlers(key)).map((h) => h.name).sort();

  beforeAll(async () => {
    staging = await startServer();
    production = await startServer();
    stagingKey = await staging.newKey();
    productionKey = await production.newKey("prod-team");
    rotatedKey = await production.newKey("prod-team"); // a second key of the same account
    // A handler made by hand on each site, of the same name and type: only production's is adopted.
    const existing = { type: "email", name: "Existing", settings: { email: "e@example.com" } } as const;
    const manual = (name: string): Promise<number> =>
      production.seed(productionKey, { type: "internal_notification", name, settings: {} });
    seeded = {
      stagingExisting: await staging.seed(stagingKey, existing),
      manual1: await manual("Manual 1"),
      manual2: await manual("Manual 2"),
      productionExisting: await production.seed(productionKey, existing),
    };
  });

  afterAll(async () => {
    await staging?.close();
    await production?.close();
  });

  // One story: each step runs the stack the steps before it left, on the handlers they left.
  it("creates on each site, moves a handler between them, takes a rotated key, refreshes and destroys", async () => {
    /** What the program declares; the steps change it between runs. */
    const program = { moveHookToProduction: false };
    const { NotificationHandler, getNotificationHandlersOutput } = pkg();
    const pulumi = nativeRequire("@pulumi/pulumi") as typeof PulumiModule;
    const s = await stackForTest({
      // The provider's configuration is the staging site; production is an explicit connection.
      config: {
        ...providerConfig(staging.url, stagingKey),
        stagingUrl: staging.url,
        stagingKey: { secret: stagingKey },
        productionUrl: production.url,
        productionKey: { secret: productionKey },
      },
      program: () => {
        const stagingSite = siteFromConfig("staging");
        const productionSite = siteFromConfig("production");
        const ops = new NotificationHandler("staging-ops", {
          type: "email",
          name: "Ops",
          email: "ops@staging.example.com",
        });
        const hook = new NotificationHandler("hook", {
          type: "webhook",
          name: "Deploy hook",
          webhook: program.moveHookToProduction ? PRODUCTION_HOOK : STAGING_HOOK,
          connection: program.moveHookToProduction ? productionSite : stagingSite,
        });
        const prodOps = new NotificationHandler("production-ops", {
          type: "email",
          name: "Ops",
          email: "ops@example.com",
          connection: productionSite,
        });
        const existing = new NotificationHandler("production-existing", {
          type: "email",
          name: "Existing",
          email: "e@example.com",
          adopt: true,
          connection: productionSite,
        });
        // A lookup takes the same connection.
        const manual = getNotificationHandlersOutput({ search: "manual" }, productionSite);
        return Promise.resolve({
          opsId: ops.handlerId,
          hookId: hook.handlerId,
          prodOpsId: prodOps.handlerId,
          existingId: existing.handlerId,
          manualOnProduction: pulumi.unsecret(manual.apply((hs) => hs.map((h) => h.name).sort())),
        });
      },
    });

    /**
     * Checks the state file: `connections` is how many connections it records, encrypted (the three
     * resources with one, in inputs and outputs; a refresh records outputs only); 0 after destroy.
     */
    const stateHoldsNoSecret = async (connections = 2 * 3): Promise<void> => {
      const resources = connections > 0;
      const state = await s.exportState();
      // The state file is the right one.
      expect(state).toContain(
        resources ? "NotificationHandler::production-ops" : '"stack":"organization/e2e/test"',
      );
      // The connection is recorded (deletes need it), encrypted as a whole, in inputs and outputs.
      expect(state.match(CONNECTION_ENCRYPTED)?.length ?? 0).toBe(connections);
      const printed = s.output.join("\n");
      expect(printed.length, "the engine's output was captured").toBeGreaterThan(0);
      for (const secret of [stagingKey, productionKey, rotatedKey, STAGING_HOOK, PRODUCTION_HOOK]) {
        expect(state.includes(secret), "a secret in the state file").toBe(false);
        expect(printed.includes(secret), "a secret in the engine output").toBe(false);
      }
    };

    const hookId = await storyStep("up: each handler on its own site, and only there", async () => {
      const up = await s.up();
      expect(up.summary.resourceChanges).toMatchObject({ create: 5 });
      const id = (name: string): number => up.outputs[name]?.value as number;
      expect(await names(staging, stagingKey)).toEqual(["Deploy hook", "Existing", "Ops"]);
      expect(await names(production, productionKey)).toEqual(["Existing", "Manual 1", "Manual 2", "Ops"]);
      expect(id("existingId")).toBe(seeded.productionExisting); // adopted on production, not the staging one
      expect((await staging.handlers(stagingKey)).find((h) => h.id === id("hookId"))?.settings).toEqual({
        webhook: STAGING_HOOK,
      });
      expect(up.outputs.manualOnProduction?.value).toEqual(["Manual 1", "Manual 2"]);
      await stateHoldsNoSecret();
      return id("hookId");
    });

    await storyStep("a handler moved to the other site: created there, deleted from the old", async () => {
      program.moveHookToProduction = true;
      const up = await s.up();
      expect(up.summary.resourceChanges).toMatchObject({ replace: 1, same: 4 });
      expect(s.output.at(-1)).toContain(
        `handler ${hookId} ("Deploy hook") moves from ${staging.url}/ to ${production.url}/`,
      );
      expect(await names(staging, stagingKey)).toEqual(["Existing", "Ops"]);
      expect(await names(production, productionKey)).toEqual([
        "Deploy hook",
        "Existing",
        "Manual 1",
        "Manual 2",
        "Ops",
      ]);
      const moved = (await production.handlers(productionKey)).find((h) => h.name === "Deploy hook");
      expect(moved?.settings).toEqual({ webhook: PRODUCTION_HOOK });
      expect(up.outputs.hookId?.value).toBe(moved?.id);
      expect((await s.preview()).changeSummary).toEqual({ same: 5 });
    });

    await storyStep("a rotated key for the same site: the state changes, not the handlers", async () => {
      await s.stack.setConfig("productionKey", { value: rotatedKey, secret: true });
      const mark = production.served.length;
      const up = await s.up();
      expect(up.summary.resourceChanges).toMatchObject({ update: 3, same: 2 });
      expect(production.countSince(mark).writes).toBe(0);
      // The old key is revoked: everything now goes through the new one.
      expect(await production.repository.revokeApiKey(productionKey, "2026-01-01 00:00:00")).toBe(true);
      expect((await s.preview()).changeSummary).toEqual({ same: 5 });
      await stateHoldsNoSecret();
    });

    await storyStep("refresh: every handler kept on its site, no key in the state", async () => {
      await s.refresh();
      await stateHoldsNoSecret(3);
      expect((await s.preview()).changeSummary).toEqual({ same: 5 });
    });

    await storyStep("destroy: every handler it manages deleted on both sites, and only those", async () => {
      await s.destroy();
      expect(await names(staging, stagingKey)).toEqual(["Existing"]); // made by hand, never adopted
      expect(await names(production, rotatedKey)).toEqual(["Manual 1", "Manual 2"]);
      await stateHoldsNoSecret(0);
    });
  });

  it("NotificationHandler.get reads through a connection: the same id on the configured site is another handler", async () => {
    const { NotificationHandler } = pkg();
    const id = seeded.stagingExisting;
    expect(id).toBe(seeded.manual1); // both sites number their handlers from 1
    const reader = await stackForTest({
      config: {
        ...providerConfig(staging.url, stagingKey),
        productionUrl: production.url,
        productionKey: { secret: rotatedKey },
      },
      program: () => {
        const productionSite = siteFromConfig("production");
        const there = NotificationHandler.get("there", id, undefined, productionSite);
        const here = NotificationHandler.get("here", id);
        return Promise.resolve({ there: there.name, here: here.name });
      },
    });
    const before = await names(production, rotatedKey);
    expect(before).toContain("Manual 1");
    const up = await reader.up();
    expect(up.outputs.there?.value).toBe("Manual 1");
    expect(up.outputs.here?.value).toBe("Existing");
    const state = await reader.exportState();
    expect(state).toContain("NotificationHandler::there");
    expect(state.includes(rotatedKey), "a key in the state file").toBe(false);
    expect(state.includes(stagingKey), "a key in the state file").toBe(false);
    await reader.destroy();
    expect(await names(production, rotatedKey)).toEqual(before); // reads delete nothing
  });
});
