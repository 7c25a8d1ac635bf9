/**
 * Taking over handlers that already exist, and never leaving a duplicate or an orphan when a create's
 * answer is lost; reading existing handlers into a program with `get` and the lookups.
 */
import type * as PulumiModule from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";

import {
  EMULATED_2025,
  REFERENCE,
  createStack,
  nativeRequire,
  pkg,
  useTarget,
} from "../support/engine/stacks";

// 2025 ignores list filters: adoption, the search for a lost create and the lookups must check what
// the list gives back.
describe.each([REFERENCE, EMULATED_2025])("against $name", (target) => {
  let cuts = 0;
  const inPlace = target.strategy === "in-place";

  const ctx = useTarget(target, {
    // When armed, the next create is stored, then its connection is cut before the answer.
    cutAfterHandling: (method, path) =>
      method === "POST" && /notification-handlers\/?$/.test(path) && cutNext(),
  });

  let armed = false;
  function cutNext(): boolean {
    if (!armed) return false;
    armed = false;
    cuts++;
    return true;
  }

  describe("adopt", () => {
    it("takes over the handler of the same name and type, and the one with a given id, then manages them", async () => {
      const key = await ctx.server.newKey();
      const byName = await ctx.server.seed(key, {
        type: "email",
        name: "Ops email",
        settings: { email: "old@example.com" },
      });
      const otherType = await ctx.server.seed(key, {
        type: "slack",
        name: "Ops email",
        settings: { slack: "https://hooks.slack.com/x" },
      });
      const byId = await ctx.server.seed(key, {
        type: "webhook",
        name: "old hook",
        settings: { webhook: "https://example.com/old" },
      });
      const { NotificationHandler } = pkg();
      let hookType: "webhook" | "slack" = "webhook";
      const s = await ctx.stack(key, () => {
        const ops = new NotificationHandler("ops", {
          type: "email",
          name: "Ops email",
          email: "ops@example.com",
          adopt: true,
        });
        // The program keeps `adopt: <id>` after the takeover, as programs do.
        const hook =
          hookType === "webhook"
            ? new NotificationHandler("hook", {
                type: "webhook",
                name: "Deploy webhook",
                webhook: "https://example.com/deploy",
                adopt: byId,
              })
            : new NotificationHandler("hook", {
                type: "slack",
                name: "Deploy webhook",
                slack: "https://hooks.slack.com/deploy",
                adopt: byId,
              });
        return Promise.resolve({ ops: ops.handlerId, hook: hook.handlerId });
      });
      const up = await s.up();
      // In place, the adopted handlers are updated; with the replace strategy they are replaced.
      expect(up.outputs.ops?.value === byName).toBe(inPlace);
      expect(up.outputs.hook?.value === byId).toBe(inPlace);
      const handlers = await ctx.server.handlers(key);
      expect(handlers).toHaveLength(3);
      expect(handlers.find((h) => h.id === up.outputs.ops?.value)).toMatchObject({
        type: "email",
        settings: { email: "ops@example.com" },
      });
      expect(handlers.find((h) => h.id === up.outputs.hook?.value)).toMatchObject({
        name: "Deploy webhook",
        settings: { webhook: "https://example.com/deploy" },
      });
      expect(handlers.find((h) => h.id === otherType)).toMatchObject({ type: "slack" });

      expect((await s.up()).summary.resourceChanges).toMatchObject({ same: 3 });

      // A later replacement makes a new handler: adoption is for the first create only.
      hookType = "slack";
      const replaced = await s.up();
      expect(replaced.summary.resourceChanges).toMatchObject({ replace: 1, same: 2 });
      expect(
        (await ctx.server.handlers(key)).find((h) => h.id === replaced.outputs.hook?.value),
      ).toMatchObject({
        type: "slack",
        name: "Deploy webhook",
      });
      expect(await ctx.server.handlers(key)).toHaveLength(3);

      await s.destroy();
      expect((await ctx.server.handlers(key)).map((h) => h.id)).toEqual([otherType]);
    });

    it("refuses to guess between several handlers of the same name, listing their ids", async () => {
      const key = await ctx.server.newKey();
      const a = await ctx.server.seed(key, { type: "internal_notification", name: "Inbox", settings: {} });
      const b = await ctx.server.seed(key, { type: "internal_notification", name: "Inbox", settings: {} });
      const { NotificationHandler } = pkg();
      const s = await ctx.stack(key, () => {
        new NotificationHandler("inbox", { type: "internal_notification", name: "Inbox", adopt: true });
        return Promise.resolve({});
      });
      await expect(s.up()).rejects.toThrow(`(ids ${a}, ${b}); set adopt to the id of the one to take over`);
      expect(await ctx.server.handlers(key)).toHaveLength(2);
    });
  });

  describe("a create whose answer is lost", () => {
    it("finds the handler it made and takes it over: no duplicate, no orphan", async () => {
      const key = await ctx.server.newKey();
      await ctx.server.seed(key, {
        type: "email",
        name: `lost "answer" & <b>co</b>`,
        settings: { email: "someone-else@example.com" },
      });
      const { NotificationHandler } = pkg();
      const s = await ctx.stack(key, () => {
        const h = new NotificationHandler("lost", {
          type: "email",
          name: `lost "answer" & <b>co</b>`,
          email: "mine@example.com",
        });
        return Promise.resolve({ id: h.handlerId });
      });
      armed = true;
      const before = cuts;
      const up = await s.up();
      expect(cuts).toBe(before + 1);
      const handlers = await ctx.server.handlers(key);
      expect(handlers).toHaveLength(2);
      const mine = handlers.find((h) => h.settings.email === "mine@example.com");
      expect(up.outputs.id?.value).toBe(mine?.id);
      expect(s.output.at(-1)).toContain("found the handler it made");
      expect((await s.preview()).changeSummary).toMatchObject({ same: 2 });
    });
  });

  describe("reading existing handlers", () => {
    it("NotificationHandler.get and the lookups read handlers the program does not manage", async () => {
      const key = await ctx.server.newKey();
      const id = await ctx.server.seed(key, {
        type: "discord",
        name: "Shared Discord",
        settings: { discord: "https://discord.com/api/webhooks/9/z" },
      });
      await ctx.server.seed(key, { type: "email", name: "Other", settings: { email: "o@example.com" } });
      const { NotificationHandler, getNotificationHandler, getNotificationHandlers } = pkg();
      const s = await ctx.stack(key, async () => {
        const found = await getNotificationHandler({ name: "Shared Discord" });
        const emails = await getNotificationHandlers({ type: "email" });
        const read = NotificationHandler.get("shared", found.handlerId);
        return {
          foundId: found.handlerId,
          emails: emails.map((h) => h.name),
          readName: read.name,
          readType: read.type,
        };
      });
      const up = await s.up();
      expect(up.outputs.foundId?.value).toBe(id);
      expect(up.outputs.emails?.value).toEqual(["Other"]);
      expect(up.outputs.readName?.value).toBe("Shared Discord");
      expect(up.outputs.readType?.value).toBe("discord");
      await s.destroy();
      expect(await ctx.server.handlers(key)).toHaveLength(2); // a read resource is never deleted
    });
  });
});

// What no deployed version changes: the reference server alone.
describe("against the reference server", () => {
  const ctx = useTarget(REFERENCE);

  it("creates normally when there is nothing to take over", async () => {
    const key = await ctx.server.newKey();
    const { NotificationHandler } = pkg();
    const s = await ctx.stack(key, () => {
      new NotificationHandler("fresh", { type: "twilio_call", twilioCall: "+15551234567", adopt: true });
      return Promise.resolve({});
    });
    await s.up();
    expect((await ctx.server.handlers(key)).map((h) => h.name)).toEqual(["fresh"]);
  });

  it("the Output forms take Inputs, keep settings secret where they hold a credential, and isInstance knows the resource", async () => {
    const key = await ctx.server.newKey();
    const webhook = "https://discord.com/api/webhooks/7/lookup-secret";
    const slack = "https://hooks.slack.com/services/T0/B0/settings-secret";
    await ctx.server.seed(key, { type: "discord", name: "Shared Discord", settings: { discord: webhook } });
    const { NotificationHandler, getNotificationHandlerOutput, getNotificationHandlersOutput } = pkg();
    const pulumi = nativeRequire("@pulumi/pulumi") as typeof PulumiModule;
    const s = await ctx.stack(key, () => {
      const mine = new NotificationHandler("mine", { type: "email", name: "Mine", email: "m@example.com" });
      const hook = new NotificationHandler("hook", { type: "slack", name: "Hook", slack });
      // The name is an Output of another resource: the lookup waits for it.
      const found = getNotificationHandlerOutput({ name: mine.name, type: "email" });
      const discord = getNotificationHandlersOutput({ type: pulumi.output("discord" as const) });
      return Promise.resolve({
        mineId: mine.handlerId,
        mineSettings: mine.settings,
        hookSettings: hook.settings,
        foundId: pulumi.unsecret(found.handlerId),
        discord,
        discordNames: pulumi.unsecret(discord.apply((hs) => hs.map((h) => h.name))),
        isInstance: NotificationHandler.isInstance(mine),
        notInstance: NotificationHandler.isInstance({ handlerId: 1 }),
      });
    });
    const up = await s.up();
    const mineId = up.outputs.mineId?.value as number;
    expect(up.outputs.foundId).toEqual({ value: mineId, secret: false });
    expect(up.outputs.discordNames).toEqual({ value: ["Shared Discord"], secret: false });
    expect(up.outputs.discord?.secret).toBe(true);
    expect(up.outputs.isInstance?.value).toBe(true);
    expect(up.outputs.notInstance?.value).toBe(false);
    // An email address is no secret, as its input shows; a Slack webhook is.
    expect(up.outputs.mineSettings).toEqual({ value: { email: "m@example.com" }, secret: false });
    expect(up.outputs.hookSettings?.secret).toBe(true);
    const state = await s.exportState();
    expect(state).not.toContain(webhook);
    expect(state).not.toContain(slack);
  });

  it("a lookup without configuration fails with the provider's config hint", async () => {
    const { getNotificationHandler } = pkg();
    const s = await createStack({
      program: async () => ({ id: (await getNotificationHandler({ name: "Anything" })).handlerId }),
      config: { "notification-handlers:baseUrl": ctx.server.url }, // no API key
    });
    const error = await s.up().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("pulumi config set --secret notification-handlers:apiKey <key>");
    expect(error?.message).not.toContain("new NotificationHandlersClient()");
    await s.dispose();
  });
});
