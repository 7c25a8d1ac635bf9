/**
 * The provider under the real Pulumi engine against the reference server: create, no-op, in-place
 * updates, replacement, drift, refresh, destroy, and the request budget.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createStack, pkg, providerConfig, startServer, type TestServer, type TestStack } from "./harness";

let server: TestServer;
const stacks: TestStack[] = [];

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  for (const s of stacks) await s.dispose();
  await server.close();
});

describe("a stack of handlers", () => {
  it("creates, changes nothing on a second up, updates in place, replaces on type change, destroys", async () => {
    const key = server.newKey();
    const { NotificationHandler } = pkg();
    let variant = 0;
    const program = async (): Promise<Record<string, unknown>> => {
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
    const s = await createStack({ program, config: providerConfig(server.url, key) });
    stacks.push(s);

    const first = await s.up();
    expect(first.summary.resourceChanges).toMatchObject({ create: 3 });
    const emailId = first.outputs.emailId?.value as number;
    const chatId = first.outputs.chatId?.value as number;
    let rows = server.handlers(key);
    expect(rows.map((r) => r.name).sort()).toEqual(["On-call", "chat"]);

    const second = await s.up();
    expect(second.summary.resourceChanges).toMatchObject({ same: 3 });

    variant = 1; // rename and disable: in place
    const third = await s.up();
    expect(third.summary.resourceChanges).toMatchObject({ update: 1, same: 2 });
    expect(third.outputs.emailId?.value).toBe(emailId);
    const renamed = server.handlers(key).find((h) => h.id === emailId);
    expect(renamed).toMatchObject({ name: "On-call (renamed)", isEnabled: false });

    variant = 2; // type change: replaced
    const fourth = await s.up();
    expect(fourth.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(fourth.outputs.chatId?.value).not.toBe(chatId);
    rows = server.handlers(key);
    expect(rows.map((r) => r.type).sort()).toEqual(["discord", "email"]);

    await s.destroy();
    rows = server.handlers(key);
    expect(rows).toEqual([]);
  });
});
