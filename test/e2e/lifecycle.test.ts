/**
 * The provider under the real Pulumi engine: create, no-op, in-place changes, type change, destroy;
 * against the reference server, and a deployed version whose defective update needs replacements.
 */
import { describe, expect, it } from "vitest";

import { EMULATED_2026, REFERENCE, pkg, useTarget } from "./harness";

describe.each([REFERENCE, EMULATED_2026])("against $name", (target) => {
  const ctx = useTarget(target);

  it("creates, changes nothing on a second up, renames and disables, replaces on type change, destroys", async () => {
    const key = await ctx.server.newKey();
    const { NotificationHandler } = pkg();
    let variant = 0;
    const program = (): Promise<Record<string, unknown>> => {
      const email = new NotificationHandler("oncall", {
        type: "email",
        name: variant >= 1 ? "On-call (renamed)" : "On-call",
        email: "oncall@example.com",
        isEnabled: variant < 1,
      });
      const chat =
        variant >= 2
          ? new NotificationHandler("chat", {
              type: "discord",
              discord: "https://discord.com/api/webhooks/1/x",
            })
          : new NotificationHandler("chat", {
              type: "slack",
              slack: "https://hooks.slack.com/services/T/B/X",
            });
      return Promise.resolve({ emailId: email.handlerId, chatId: chat.handlerId });
    };
    const s = await ctx.stack(key, program);

    const first = await s.up();
    expect(first.summary.resourceChanges).toMatchObject({ create: 3 });
    const emailId = first.outputs.emailId?.value as number;
    const chatId = first.outputs.chatId?.value as number;
    expect((await ctx.server.handlers(key)).map((r) => r.name).sort()).toEqual(["On-call", "chat"]);

    const second = await s.up();
    expect(second.summary.resourceChanges).toMatchObject({ same: 3 });

    variant = 1; // rename and disable
    const third = await s.up();
    if (target.strategy === "in-place") {
      expect(third.summary.resourceChanges).toMatchObject({ update: 1, same: 2 });
      expect(third.outputs.emailId?.value).toBe(emailId);
    } else {
      expect(third.summary.resourceChanges).toMatchObject({ replace: 1, same: 2 });
      expect(third.outputs.emailId?.value).not.toBe(emailId);
    }
    const renamed = (await ctx.server.handlers(key)).filter((h) => h.type === "email");
    expect(renamed).toHaveLength(1);
    expect(renamed[0]).toMatchObject({
      id: third.outputs.emailId?.value as number,
      name: "On-call (renamed)",
      isEnabled: false,
    });

    variant = 2; // type change: replaced
    const fourth = await s.up();
    expect(fourth.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(fourth.outputs.chatId?.value).not.toBe(chatId);
    expect((await ctx.server.handlers(key)).map((r) => r.type).sort()).toEqual(["discord", "email"]);
    expect((await s.up()).summary.resourceChanges).toMatchObject({ same: 3 });

    await s.destroy();
    expect(await ctx.server.handlers(key)).toEqual([]);
  });
});
