/**
 * Deployed instances, their defects included (docs/api.md#deployed), under the real engine: defective
 * updates fail plainly and leave state that agrees with the API; the replace strategy works around
 * them; pending email handlers; values the server cleans never show a diff twice.
 */
import { describe, expect, it } from "vitest";

import { pkg, providerConfig, serverForTest, stackForTest, type TestStack } from "../support/engine/stacks";

interface StateResource {
  urn: string;
  id?: string;
  outputs?: Record<string, unknown>;
}

async function recorded(s: TestStack, name: string): Promise<StateResource | undefined> {
  const state = JSON.parse(await s.exportState()) as {
    checkpoint: { latest: { resources: StateResource[] } };
  };
  return state.checkpoint.latest.resources.find((r) => r.urn.endsWith(`NotificationHandler::${name}`));
}

describe.each([
  {
    version: "2026" as const,
    defect:
      "wiped the handler's type and settings (type is now null): the known update defect of deployed instances from 2026",
  },
  {
    version: "2025" as const,
    defect: "saved nothing: the known update defect of deployed instances from 2025",
  },
])("a defective update of an emulated $version instance", ({ version, defect }) => {
  it("fails the up naming the handler, the defect and the way out; the state agrees with the API; replace repairs it", async () => {
    const server = await serverForTest({ emulate: version });
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    let name = "Ops";
    const s = await stackForTest({
      config: providerConfig(server.url, key), // the default strategy: in place
      program: () => {
        const h = new NotificationHandler("ops", { type: "email", name, email: "ops@example.com" });
        return Promise.resolve({ id: h.handlerId });
      },
    });
    const id = (await s.up()).outputs.id?.value as number;

    name = "Ops team";
    const error = await s.up().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(
      `updating handler ${id} ("Ops team") failed: the server answered 200 but ${defect}`,
    );
    expect(error?.message).toContain('set `updateStrategy: "replace"` on this resource');
    expect(error?.message).toContain("pulumi config set notification-handlers:updateStrategy replace");

    // The state records the handler as the server now has it, not as the program wanted it.
    const [live] = await server.handlers(key);
    const state = await recorded(s, "ops");
    expect(state?.id).toBe(String(id));
    if (version === "2026") {
      expect(live).toMatchObject({ id, name: "Ops team" });
      expect(state?.outputs?.type).toBeNull();
    } else {
      expect(live).toMatchObject({ id, name: "Ops", type: "email" });
      expect(state?.outputs?.name).toBe("Ops");
    }

    await s.stack.setConfig("notification-handlers:updateStrategy", { value: "replace" });
    const repaired = await s.up();
    expect(repaired.summary.resourceChanges).toMatchObject({ replace: 1 });
    const handlers = await server.handlers(key);
    expect(handlers).toHaveLength(1);
    expect(handlers[0]).toMatchObject({
      id: repaired.outputs.id?.value as number,
      type: "email",
      name: "Ops team",
      settings: { email: "ops@example.com" },
    });
    expect((await s.up()).summary.resourceChanges).toMatchObject({ same: 2 });
  });
});

describe("an email handler waiting for confirmation (emulated 2026)", () => {
  it("counts as enabled with no diff, and an output tells that it is pending", async () => {
    const server = await serverForTest({ emulate: "2026" });
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    const s = await stackForTest({
      config: providerConfig(server.url, key, "replace"),
      program: () => {
        const h = new NotificationHandler("ops", { type: "email", email: "ops@example.com" });
        return Promise.resolve({ pending: h.pendingConfirmation, enabled: h.isEnabled });
      },
    });
    const up = await s.up();
    expect(up.outputs.pending?.value).toBe(true);
    expect(up.outputs.enabled?.value).toBe(true);
    // An up with no change runs the same diff a preview would, and records that nothing changed.
    const again = await s.up();
    expect(again.summary.resourceChanges).toMatchObject({ same: 2 });
  });
});

// Every deployed version cleans values the same way (docs/api.md#deployed-value-cleaning); how each
// version's reads are parsed is the client's integration tests'.
describe.each([
  { name: "an emulated 2026 instance", emulate: "2026" as const, strategy: "replace" as const },
])("values the server cleans, against $name", ({ emulate, strategy }) => {
  it("show no diff on the second up: quotes, tags, &, long text and a + phone number", async () => {
    const server = await serverForTest({ emulate });
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    // 110 characters with quotes: as entities (&#34; is 5 characters) it passes 128 and is cut.
    const longName = `On-call "primary" & 'backup' <b>rotation</b> ${'"x"'.repeat(20)}`.slice(0, 110);
    const s = await stackForTest({
      config: providerConfig(server.url, key, strategy),
      program: () => {
        new NotificationHandler("long", { type: "internal_notification", name: longName });
        new NotificationHandler("x", {
          type: "x",
          name: `<i>X</i> "alerts" & 'status'`,
          xConsumerKey: ` key<br/>"with" 'quotes' & tags `,
          xConsumerSecret: "secret&<script>alert(1)</script>",
          xAccessToken: "token 'single'",
          xAccessTokenSecret: "a".repeat(500),
        });
        new NotificationHandler("phone", {
          type: "whatsapp",
          name: "WhatsApp +44",
          whatsapp: "+447700900123",
        });
        new NotificationHandler("hook", {
          type: "webhook",
          name: "Hook & <tag>",
          webhook: "https://example.com/hook?a=1&b='2'",
        });
        return Promise.resolve({});
      },
    });
    expect((await s.up()).summary.resourceChanges).toMatchObject({ create: 5 });
    const second = await s.up();
    expect(second.summary.resourceChanges).toMatchObject({ same: 5 });
    if (emulate !== undefined) {
      // The emulated server really rewrote them: the comparison, not luck, keeps the diff empty.
      const stored = await server.handlers(key);
      expect(stored.find((h) => h.type === "whatsapp")?.settings.whatsapp).toBe("447700900123");
      expect(stored.find((h) => h.type === "internal_notification")?.name).toHaveLength(128);
    }
  });
});
