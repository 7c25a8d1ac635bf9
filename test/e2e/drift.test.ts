/**
 * Drift and the request budget, under the real engine: refresh follows the API; a run with nothing
 * to change reads N handlers with ceil(N/1000) list requests. Drift shown by preview and repaired by
 * a plain `pulumi up` is proved on the user's path (cli-quickstart). On the reference server: deployed
 * versions' differences are proved where they matter (lifecycle, adopt, deployed).
 */
import { describe, expect, it } from "vitest";

import { REFERENCE, pkg, useTarget } from "../support/engine/stacks";

describe.each([REFERENCE])("against $name", (target) => {
  const inPlace = target.strategy === "in-place";

  const ctx = useTarget(target);

  describe("drift", () => {
    it("refresh records the live handler and drops one deleted in the API", async () => {
      const key = await ctx.server.newKey();
      const { NotificationHandler } = pkg();
      const s = await ctx.stack(key, () => {
        const a = new NotificationHandler("a", { type: "twilio", twilio: "+15551230001" });
        const b = new NotificationHandler("b", { type: "internal_notification" });
        return Promise.resolve({ a: a.handlerId, b: b.handlerId });
      });
      const up = await s.up();
      const a = up.outputs.a?.value as number;
      const b = up.outputs.b?.value as number;
      await ctx.server.edit(key, a, { isEnabled: false });
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

      // The next up brings both back to the program.
      await s.up();
      expect((await ctx.server.handlers(key)).map((h) => `${h.type} ${h.isEnabled}`).sort()).toEqual([
        "internal_notification true",
        "twilio true",
      ]);
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
