/**
 * The request budget under the real engine: a run with nothing to change reads N handlers with
 * ceil(N/1000) list requests, and each write is made once. Drift shown by preview and repaired by a
 * plain `pulumi up` is proved on the user's path (cli-quickstart), Pulumi's options through the
 * dynamic provider in cli-resource-options; deployed versions' differences where they matter
 * (lifecycle, adopt, deployed).
 */
import { describe, expect, it } from "vitest";

import { REFERENCE, pkg, useTarget } from "../support/engine/stacks";

describe.each([REFERENCE])("against $name", (target) => {
  const inPlace = target.strategy === "in-place";

  const ctx = useTarget(target);

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
