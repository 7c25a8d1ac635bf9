/**
 * Pulumi's resource options and commands through the dynamic provider on the user's path: a
 * TypeScript project (test/fixtures/resource-options) with the packed package installed, run with the
 * Pulumi CLI in its folder, a phase of the story at a time. First what the resource passes to its
 * provider (`ignoreChanges` through a UI edit and `pulumi refresh`, `replaceOnChanges`, `import`,
 * `customTimeouts` on a slow site), then the engine's own (`replacementTrigger`, `replaceWith`,
 * `aliases`, `retainOnDelete` set by a transform, `hideDiffs`, `additionalSecretOutputs`, `dependsOn`,
 * `deletedWith`, `protect`), `up --refresh`, `--target`, `pulumi state move`, and
 * `pulumi import`, which the dynamic-provider host cannot serve.
 * The plugin's twin is plugin-resource-options.
 */
import { describe, expect, inject, it, onTestFinished } from "vitest";

import type { StateResource } from "../../cli/state-json";
import { DYNAMIC_RESOURCE_TYPE } from "../../provider/tokens";
import { exportedResources, serverForTest } from "../support/engine/stacks";
import { UserSession } from "../support/engine/user-path";
import { storyStep } from "../support/story-step";

const urn = (name: string, stack = "dev"): string =>
  `urn:pulumi:${stack}::resource-options::${DYNAMIC_RESOURCE_TYPE}::${name}`;

describe("Pulumi's resource options through the dynamic provider, with the Pulumi CLI in a project folder", () => {
  it("mean what Pulumi says: those the resource passes, then the engine's own, and its commands", async () => {
    // While set, every create waits before the server handles it: a slow site.
    let slowCreates = false;
    const server = await serverForTest({
      delayMs: (method) => (slowCreates && method === "POST" ? 800 : 0),
    });
    const key = await server.newKey();
    const s = await UserSession.start("resource-options", {
      pathFirst: inject("enginePath"),
      source: "test/fixtures/resource-options",
      pins: "examples/quickstart",
    });
    onTestFinished(() => s.dispose());
    const names = async (): Promise<string[]> => (await server.handlers(key)).map((h) => h.name).sort();
    const outputs = async (): Promise<Record<string, number>> =>
      JSON.parse((await s.mustSh("pulumi stack output --json")).stdout) as Record<string, number>;
    const state = async (stack = "dev"): Promise<StateResource[]> =>
      exportedResources((await s.mustSh(`pulumi stack export --stack ${stack}`, false)).stdout).filter(
        (r) => r.type === DYNAMIC_RESOURCE_TYPE,
      );

    await s.mustSh(`export KEY=${key}`, false);
    await s.mustSh(
      [
        "export PULUMI_CONFIG_PASSPHRASE=local-only",
        "pulumi stack init dev",
        `pulumi config set notification-handlers:baseUrl ${server.url}`,
        'pulumi config set --secret notification-handlers:apiKey "$KEY"',
        "pulumi config set phase 0",
        "pulumi up --yes",
      ].join("\n"),
    );
    const first = await outputs();
    expect(first.waitsId, "dependsOn makes `waits` after `first`, declared after it").toBeGreaterThan(
      first.firstId!,
    );

    await storyStep("a UI edit and a delete, recorded by refresh", async () => {
      await server.edit(key, first.aId!, { name: "a (UI)", isEnabled: false });
      await server.drop(key, first.bId!);
      const refreshed = await s.mustSh("pulumi refresh --yes");
      expect(refreshed.stdout).toMatch(/~ 1 updated/);
      expect(refreshed.stdout).toMatch(/- 1 deleted/);
      const handlers = (await state()).filter((r) => r.urn === urn("a") || r.urn === urn("b"));
      expect(handlers.map((r) => r.id)).toEqual([String(first.aId)]);
      expect(handlers[0]?.outputs?.isEnabled).toBe(false);
    });

    await storyStep(
      "up puts back all but the name left to the UI, the UI's change read as the UI's",
      async () => {
        const up = await s.mustSh("pulumi up --yes");
        expect(up.stdout).toContain(`handler ${first.aId} ("a (UI)") differs from the program`);
        expect(up.stdout).toContain("isEnabled: live false, desired true (changed outside the code)");
        expect(up.stdout).not.toMatch(/^\s*name: live/m);
        const live = await server.handlers(key);
        expect(live.find((h) => h.id === first.aId)).toMatchObject({ name: "a (UI)", isEnabled: true });
        expect(live.filter((h) => h.name === "b")).toHaveLength(1);
      },
    );

    const byHand = await server.seed(key, {
      type: "email",
      name: "Ops (UI)",
      settings: { email: "ops@example.com" },
    });
    await storyStep(
      "replaceOnChanges keeps the UI's name, import takes over naming what it writes, a late create is recorded",
      async () => {
        slowCreates = true;
        const late = await s.sh(
          `pulumi config set byHand ${byHand}\npulumi config set phase 1\npulumi up --yes`,
        );
        slowCreates = false;
        expect(late.code).not.toBe(0);
        const printed = `${late.stdout}\n${late.stderr}`;
        expect(printed).toContain("the create of late did not finish within its custom timeout of 0.3 s");
        expect(printed).toContain(
          `handler ${byHand} ("Ops (UI)", in the code "Ops") differs from the program:`,
        );
        expect(printed).toContain('name: live "Ops (UI)", desired "Ops" (changed outside the code)');

        // The engine updates a resource whose create failed after it made the handler: nothing to write.
        const converged = await s.mustSh("pulumi up --yes");
        expect(converged.stdout).toMatch(/~ 1 updated/);
        expect(converged.stdout).not.toMatch(/created/);
        const live = await server.handlers(key);
        expect(live.filter((h) => h.name === "Late")).toHaveLength(1);
        expect(live.find((h) => h.id === byHand)?.name).toBe("Ops");
        const a = live.find((h) => h.type === "twilio");
        expect(a).toMatchObject({ name: "a (UI)", settings: { twilio: "+15551230002" } });
        expect(a?.id).not.toBe(first.aId);
      },
    );

    await storyStep(
      "the engine's own: a trigger replaces two, an alias keeps its handler, a transform retains one, a hidden diff",
      async () => {
        const up = await s.mustSh("pulumi config set phase 2\npulumi up --refresh --diff --yes");
        expect(up.stdout).toMatch(/\+-2 replaced/);
        expect(up.stdout).toMatch(/~ 1 updated/);
        expect(up.stdout).toMatch(/- 1 deleted/);
        expect(up.stdout).toContain("~ name (hidden)");
        const second = await outputs();
        expect(second.triggerId).not.toBe(first.triggerId);
        expect(second.followerId).not.toBe(first.followerId);
        expect(second.renamedId).toBe(first.renamedId);
        expect(await names()).toContain("Kept");
        expect(await names()).toContain("Mailbox (renamed)");
        const mailbox = (await state()).find((r) => r.urn === urn("mailbox"));
        expect(mailbox?.outputs?.email).toHaveProperty("ciphertext");
      },
    );

    await storyStep("--target changes only what it names; deletedWith keeps the owned handler", async () => {
      await s.mustSh(
        `pulumi config set phase 3\npulumi up --yes --target '${urn("owner")}' --target '${urn("owned")}'`,
      );
      expect(await names()).toContain("Owned");
      expect(await names()).not.toContain("Owner");
      const mailbox = (await server.handlers(key)).find((h) => h.type === "email" && h.name !== "Ops");
      expect(mailbox?.settings).toEqual({ email: "box@example.com" });
    });

    await storyStep("pulumi state move takes the mailbox, with its provider, to another stack", async () => {
      await s.mustSh(`pulumi stack init moved\npulumi stack select dev`);
      await s.mustSh(`pulumi state move --source dev --dest moved '${urn("mailbox")}' --yes`);
      const mailbox = (await server.handlers(key)).find((h) => h.name === "Mailbox (renamed)");
      expect((await state("moved")).map((r) => r.id)).toEqual([String(mailbox?.id)]);
    });

    await storyStep(
      "pulumi import fails in the dynamic-provider host's read, importing nothing",
      async () => {
        const imported = await s.sh(`pulumi import ${DYNAMIC_RESOURCE_TYPE} by-hand ${byHand} --yes`);
        expect(imported.code).not.toBe(0);
        expect(`${imported.stdout}${imported.stderr}`).toContain("code must be a string, not undefined");
        expect((await state()).map((r) => r.urn)).not.toContain(urn("by-hand"));
      },
    );

    await storyStep("a destroy stops at the protected handler, which stays", async () => {
      const destroyed = await s.sh("pulumi destroy --yes");
      expect(destroyed.code).not.toBe(0);
      expect(`${destroyed.stdout}${destroyed.stderr}`).toMatch(/protect/);
      expect(await names()).toContain("Guarded");
    });
  });
});
