/**
 * Drift and the request budget, under the real engine: refresh follows the API, and Pulumi's options
 * (`ignoreChanges`, `replaceOnChanges`, `import`, `customTimeouts`) mean what they say through the
 * dynamic provider, which the resource passes them to; a run with nothing to change reads N handlers
 * with ceil(N/1000) list requests. Drift shown by preview and repaired by
 * a plain `pulumi up` is proved on the user's path (cli-quickstart). On the reference server: deployed
 * versions' differences are proved where they matter (lifecycle, adopt, deployed).
 */
import { describe, expect, it } from "vitest";

import { REFERENCE, pkg, useTarget } from "../support/engine/stacks";

describe.each([REFERENCE])("against $name", (target) => {
  const inPlace = target.strategy === "in-place";

  // While set, every create waits before the server handles it: a slow site.
  let slowCreates = false;
  const ctx = useTarget(target, {
    delayMs: (method) => (slowCreates && method === "POST" ? 800 : 0),
  });

  describe("drift", () => {
    it("refresh records the live handler and drops one deleted in the API; Pulumi's options hold through it", async () => {
      const key = await ctx.server.newKey();
      const { NotificationHandler } = pkg();
      const byHand = await ctx.server.seed(key, {
        type: "email",
        name: "Ops (UI)",
        settings: { email: "ops@example.com" },
      });
      let phase = 0;
      const s = await ctx.stack(key, () => {
        const a = new NotificationHandler(
          "a",
          { type: "twilio", twilio: phase === 0 ? "+15551230001" : "+15551230002" },
          { ignoreChanges: ["name"], replaceOnChanges: ["twilio"] },
        );
        const b = new NotificationHandler("b", { type: "internal_notification" });
        if (phase === 0) return Promise.resolve({ a: a.handlerId, b: b.handlerId });
        const ops = new NotificationHandler(
          "ops",
          { type: "email", name: "Ops", email: "ops@example.com" },
          { import: String(byHand) },
        );
        const late = new NotificationHandler(
          "late",
          { type: "internal_notification", name: "Late" },
          { customTimeouts: { create: "300ms" } },
        );
        return Promise.resolve({ a: a.handlerId, ops: ops.handlerId, late: late.handlerId });
      });
      const up = await s.up();
      const a = up.outputs.a?.value as number;
      const b = up.outputs.b?.value as number;
      await ctx.server.edit(key, a, { name: "a (UI)", isEnabled: false });
      await ctx.server.drop(key, b);

      const refreshed = await s.refresh();
      expect(refreshed.summary.resourceChanges).toMatchObject({ update: 1, delete: 1 });
      const state = JSON.parse(await s.exportState()) as {
        checkpoint: {
          latest: { resources: { urn: string; id?: string; outputs?: Record<string, unknown> }[] };
        };
      };
      const handlers = state.checkpoint.latest.resources.filter(
        (r) => r.urn.endsWith("NotificationHandler::a") || r.urn.endsWith("NotificationHandler::b"),
      );
      expect(handlers.map((r) => r.id)).toEqual([String(a)]);
      expect(handlers[0]?.outputs?.isEnabled).toBe(false);

      // The next up brings both back to the program, but for the name it leaves to the UI. Its note
      // still reads the UI's change as the UI's after the refresh; the name shows nothing.
      await s.up();
      const note = s.output.at(-1)!;
      expect(note).toContain(`handler ${a} ("a (UI)") differs from the program`);
      expect(note).toContain("isEnabled: live false, desired true (changed outside the code)");
      expect(note).not.toContain("name:");
      expect(
        (await ctx.server.handlers(key)).map((h) => `${h.type} ${h.name} ${h.isEnabled}`).sort(),
      ).toEqual(["email Ops (UI) true", "internal_notification b true", "twilio a (UI) true"]);

      // A new number replaces `a` (replaceOnChanges), keeping the UI's name; `ops` takes over the
      // handler made by hand, after its preview named what it writes; a create past its custom
      // timeout fails, and the state records what it made.
      phase = 1;
      slowCreates = true;
      const late = await s.up().catch((error: unknown) => error);
      slowCreates = false;
      const printed = s.output.at(-1)!;
      expect(String(late)).toContain("the create of late did not finish within its custom timeout of 0.3 s");
      // The dynamic provider's notes reach the engine a line each.
      expect(printed).toContain(`handler ${byHand} ("Ops (UI)") differs from the program:`);
      expect(printed).toContain('name: live "Ops (UI)", desired "Ops" (changed outside the code)');
      const converged = await s.up();
      // The engine updates a resource whose create failed after it made the handler: nothing to write.
      expect(converged.summary.resourceChanges).toEqual({ same: 4, update: 1 });
      const after = await ctx.server.handlers(key);
      expect(after.map((h) => `${h.type} ${h.name} ${h.settings.twilio ?? ""}`.trim()).sort()).toEqual([
        "email Ops",
        "internal_notification Late",
        "internal_notification b",
        "twilio a (UI) +15551230002",
      ]);
      expect(converged.outputs.a?.value).not.toBe(a);
      expect(converged.outputs.ops?.value).toBe(byHand);
    });
  });

  describe("Pulumi's own options", () => {
    it("keep their meaning with the dynamic provider: aliases, protect, retainOnDelete by a transform, deletedWith, replaceWith, replacementTrigger, additionalSecretOutputs, hideDiffs, dependsOn, --target, up --refresh, state move", async () => {
      const key = await ctx.server.newKey();
      const { NotificationHandler } = pkg();
      const inbox = (name: string): { type: "internal_notification"; name: string } => ({
        type: "internal_notification",
        name,
      });
      let phase = 0;
      const s = await ctx.stack(key, () => {
        const trigger = new NotificationHandler("trigger", inbox("Trigger"), {
          replacementTrigger: phase > 0 ? "v1" : "v0",
        });
        const follower = new NotificationHandler("follower", inbox("Follower"), { replaceWith: [trigger] });
        const renamed = new NotificationHandler(
          phase > 0 ? "new-name" : "old-name",
          inbox("Renamed"),
          phase > 0 ? { aliases: [{ name: "old-name" }] } : {},
        );
        new NotificationHandler(
          "mailbox",
          {
            type: "email",
            name: phase > 0 ? "Mailbox (renamed)" : "Mailbox",
            email: phase > 1 ? "box2@example.com" : "box@example.com",
          },
          { additionalSecretOutputs: ["email"], hideDiffs: ["name"], dependsOn: [trigger] },
        );
        new NotificationHandler("guarded", inbox("Guarded"), { protect: true });
        if (phase < 1) {
          new NotificationHandler("kept", inbox("Kept"), {
            transforms: [({ props, opts }) => ({ props, opts: { ...opts, retainOnDelete: true } })],
          });
        }
        if (phase < 2) {
          const owner = new NotificationHandler("owner", inbox("Owner"));
          new NotificationHandler("owned", inbox("Owned"), { deletedWith: owner });
        }
        return Promise.resolve({
          trigger: trigger.handlerId,
          follower: follower.handlerId,
          renamed: renamed.handlerId,
        });
      });
      const names = async (): Promise<string[]> => (await ctx.server.handlers(key)).map((h) => h.name).sort();

      const first = await s.up();
      phase = 1;
      const second = await s.up({ refresh: true, diff: true });
      // A new trigger replaces `trigger`, and `follower` with it; the alias keeps its handler; the
      // resource a transform retained leaves its handler; the rename is an update.
      expect(second.summary.resourceChanges).toMatchObject({ replace: 2, update: 1, delete: 1 });
      expect(second.outputs.trigger?.value).not.toBe(first.outputs.trigger?.value);
      expect(second.outputs.follower?.value).not.toBe(first.outputs.follower?.value);
      expect(second.outputs.renamed?.value).toBe(first.outputs.renamed?.value);
      expect(await names()).toContain("Kept");
      expect(await names()).toContain("Mailbox (renamed)");
      expect(s.output.at(-1)).toContain("~ name (hidden)");
      const state = JSON.parse(await s.exportState()) as {
        checkpoint: { latest: { resources: { urn: string; outputs?: Record<string, unknown> }[] } };
      };
      const recorded = state.checkpoint.latest.resources.find((r) => r.urn.endsWith("::mailbox"));
      expect(recorded?.outputs?.email).toHaveProperty("ciphertext");

      // Only what --target names changes: `owner` and `owned` go, `owned` keeping its handler (it
      // goes with `owner`); the mailbox's new address waits.
      phase = 2;
      const stackUrn = (name: string): string =>
        `urn:pulumi:test::e2e::pulumi-nodejs:dynamic/notification-handlers:NotificationHandler::${name}`;
      await s.up({ target: [stackUrn("owner"), stackUrn("owned")] });
      expect(await names()).toContain("Owned");
      expect(await names()).not.toContain("Owner");
      const mailbox = (await ctx.server.handlers(key)).find((h) => h.type === "email");
      expect(mailbox?.settings).toEqual({ email: "box@example.com" });

      // `pulumi state move` takes the mailbox, with its provider, to another stack, its handler as it was.
      await s.cli("stack", "init", "moved");
      await s.cli("state", "move", "--source", "test", "--dest", "moved", stackUrn("mailbox"), "--yes");
      const moved = JSON.parse((await s.cli("stack", "export", "--stack", "moved")).stdout) as {
        deployment: { resources: { type: string; id?: string }[] };
      };
      const mailboxId = (await ctx.server.handlers(key)).find((h) => h.type === "email")?.id;
      expect(
        moved.deployment.resources
          .filter((r) => r.type === "pulumi-nodejs:dynamic/notification-handlers:NotificationHandler")
          .map((r) => r.id),
      ).toEqual([String(mailboxId)]);
      await s.stack.workspace.selectStack("test");

      // A destroy stops at the protected handler, which stays.
      const destroyed = await s.destroy().catch((error: unknown) => String(error));
      expect(destroyed).toMatch(/protect/);
      expect(await names()).toContain("Guarded");
    });
  });

  describe("request budget", () => {
    it("reads 20 handlers with one list request when nothing changes, and writes each handler once", async () => {
      const key = await ctx.server.newKey();
      const { NotificationHandler } = pkg();
      const N = 20;
      let renamed = false;
      const s = await ctx.stack(key, () => {
        for (let i = 0; i < N; i++) {
          new NotificationHandler(`h${i}`, {
            type: "email",
            name: renamed && i === 0 ? "renamed" : `handler ${i}`,
            email: `h${i}@example.com`,
          });
        }
        return Promise.resolve({});
      });

      // How many lists verify the writes depends on the engine's timing: the benchmark prints those.
      let mark = ctx.server.served.length;
      await s.up();
      expect(ctx.server.countSince(mark).writes).toBe(N);

      mark = ctx.server.served.length;
      const preview = await s.preview();
      expect(preview.changeSummary).toMatchObject({ same: N + 1 });
      expect(ctx.server.countSince(mark)).toEqual({
        lists: Math.ceil(N / 1000),
        reads: 0,
        writes: 0,
        total: 1,
      });

      mark = ctx.server.served.length;
      const again = await s.up();
      expect(again.summary.resourceChanges).toMatchObject({ same: N + 1 });
      expect(ctx.server.countSince(mark)).toEqual({ lists: 1, reads: 0, writes: 0, total: 1 });

      renamed = true;
      mark = ctx.server.served.length;
      await s.up();
      // In place: one write and the read that verifies it. Replace: create and delete, each verified.
      expect(ctx.server.countSince(mark)).toEqual(
        inPlace ? { lists: 1, reads: 1, writes: 1, total: 3 } : { lists: 1, reads: 2, writes: 2, total: 5 },
      );

      mark = ctx.server.served.length;
      await s.destroy();
      expect(ctx.server.countSince(mark).writes).toBe(N);
      expect(await ctx.server.handlers(key)).toEqual([]);
    });
  });
});
