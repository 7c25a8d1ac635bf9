/**
 * The provider under the real Pulumi engine: create, no-op, in-place changes, type change, destroy on
 * the reference server; and on a deployed version whose defective update needs replacements, the
 * change that the replace strategy turns into a replacement.
 */
import { describe, expect, it } from "vitest";

import { EMULATED_2026, REFERENCE, pkg, useTarget } from "../support/engine/stacks";

/** A program of an email handler and a chat handler; `variant` 1 renames and disables the email, 2 also changes the chat's type. */
function handlers(variant: () => number) {
  return (): Promise<Record<string, unknown>> => {
    const { NotificationHandler } = pkg();
    const email = new NotificationHandler("oncall", {
      type: "email",
      name: variant() >= 1 ? "On-call (renamed)" : "On-call",
      email: "oncall@example.com",
      isEnabled: variant() < 1,
    });
    const chat =
      variant() >= 2
        ? new NotificationHandler("chat", {
            type: "discord",
            discord: "https://discord.com/api/webhooks/1/x",
          })
        : new NotificationHandler("chat", { type: "slack", slack: "https://hooks.slack.com/services/T/B/X" });
    return Promise.resolve({ emailId: email.handlerId, chatId: chat.handlerId });
  };
}

describe("against the reference server", () => {
  const ctx = useTarget(REFERENCE);

  it("creates, changes nothing on a second up, renames and disables in place, replaces on type change, destroys", async () => {
    const key = await ctx.server.newKey();
    let variant = 0;
    const s = await ctx.stack(
      key,
      handlers(() => variant),
    );

    const first = await s.up();
    expect(first.summary.resourceChanges).toMatchObject({ create: 3 });
    const emailId = first.outputs.emailId?.value as number;
    const chatId = first.outputs.chatId?.value as number;
    expect((await ctx.server.handlers(key)).map((r) => r.name).sort()).toEqual(["On-call", "chat"]);

    const second = await s.up();
    expect(second.summary.resourceChanges).toMatchObject({ same: 3 });

    variant = 1; // rename and disable
    const third = await s.up();
    expect(third.summary.resourceChanges).toMatchObject({ update: 1, same: 2 });
    expect(third.outputs.emailId?.value).toBe(emailId);
    expect((await ctx.server.handlers(key)).filter((h) => h.type === "email")).toMatchObject([
      { id: emailId, name: "On-call (renamed)", isEnabled: false },
    ]);

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

describe(`against ${EMULATED_2026.name}`, () => {
  const ctx = useTarget(EMULATED_2026);

  it("renames and disables by replacement, the strategy its update defects call for, and destroys", async () => {
    expect(EMULATED_2026.strategy).toBe("replace");
    const key = await ctx.server.newKey();
    let variant = 0;
    const s = await ctx.stack(
      key,
      handlers(() => variant),
    );
    const emailId = (await s.up()).outputs.emailId?.value as number;

    variant = 1;
    const renamed = await s.up();
    expect(renamed.summary.resourceChanges).toMatchObject({ replace: 1, same: 2 });
    const newId = renamed.outputs.emailId?.value as number;
    expect(newId).not.toBe(emailId);
    expect((await ctx.server.handlers(key)).filter((h) => h.type === "email")).toMatchObject([
      { id: newId, name: "On-call (renamed)", isEnabled: false },
    ]);

    await s.destroy();
    expect(await ctx.server.handlers(key)).toEqual([]);
  });
});
