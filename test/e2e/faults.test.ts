/**
 * The provider under the real engine through a fault-injecting proxy (test/support/servers/fault-proxy-process.mts, its own
 * process): a fifth of the requests meet a 5xx, a 429, a reset before or after the server handled
 * them, or an answer slower than the client waits. Each operation converges in one run, with no
 * duplicate and no orphan, and a preview after it shows no change.
 */
import { describe, expect, it } from "vitest";

import { faultProxyForTest } from "../support/servers/fault-proxy";
import { REFERENCE, pkg, providerConfig, serverForTest, stackForTest } from "../support/engine/stacks";

const N = 50;
const FAULT_RATE = 0.2;
const CLIENT_TIMEOUT_MS = 2_000; // 2 s; the proxy's slow answers take 3 s

describe.each([REFERENCE])("through a proxy injecting 20% faults, against $name", (target) => {
  it("an up of 50, renaming 25 and deleting 25, and a destroy each converge in one run", async () => {
    const server = await serverForTest(target.emulate === undefined ? {} : { emulate: target.emulate });
    const proxy = await faultProxyForTest(server.url, {
      rate: FAULT_RATE,
      seed: 8,
      slowMs: CLIENT_TIMEOUT_MS + 1_000,
    });
    const key = await server.newKey();
    const { NotificationHandler } = pkg();
    let phase = 0;
    const s = await stackForTest({
      config: {
        ...providerConfig(proxy.url, key, target.strategy),
        "notification-handlers:requestTimeoutMs": String(CLIENT_TIMEOUT_MS),
      },
      // Every handler's operation at once: the runs wait on timeouts and retries, not on the machine.
      parallel: N + 1,
      program: () => {
        const ids = [];
        for (let i = 0; i < (phase === 0 ? N : N / 2); i++) {
          const name = phase === 0 ? `handler ${i}` : `handler ${i} (renamed)`;
          ids.push(new NotificationHandler(`h${i}`, { type: "internal_notification", name }).handlerId);
        }
        return Promise.resolve({ ids });
      },
    });

    /** The server holds exactly the handlers the stack manages: no duplicate, no orphan. */
    const expectConverged = async (ids: unknown, names: string[]): Promise<void> => {
      const stored = await server.handlers(key);
      expect(stored.map((h) => h.id).sort()).toEqual([...(ids as number[])].sort());
      expect(stored.map((h) => h.name).sort()).toEqual([...names].sort());
      const preview = await s.preview();
      expect(Object.keys(preview.changeSummary)).toEqual(["same"]);
    };

    const first = await s.up();
    expect(first.summary.result).toBe("succeeded");
    expect(first.summary.resourceChanges).toMatchObject({ create: N + 1 });
    await expectConverged(
      first.outputs.ids?.value,
      Array.from({ length: N }, (_, i) => `handler ${i}`),
    );

    phase = 1;
    const second = await s.up();
    expect(second.summary.result).toBe("succeeded");
    expect(second.summary.resourceChanges).toMatchObject(
      target.strategy === "in-place" ? { update: N / 2, delete: N / 2 } : { replace: N / 2, delete: N / 2 },
    );
    await expectConverged(
      second.outputs.ids?.value,
      Array.from({ length: N / 2 }, (_, i) => `handler ${i} (renamed)`),
    );

    const destroyed = await s.destroy();
    expect(destroyed.summary.result).toBe("succeeded");
    expect(await server.handlers(key)).toEqual([]);

    // The faults happened, of every kind, and none reached the user.
    const kinds = new Set(proxy.faults.map((f) => f.split(" ")[1]));
    expect([...kinds].sort()).toEqual([
      "429",
      "5xx-after",
      "5xx-before",
      "reset-after",
      "reset-before",
      "slow",
    ]);
    expect(s.output.join("\n")).not.toMatch(/^\s*error:/m);
    const requests = server.served.length;
    process.stdout.write(
      `faults against ${target.name}: ${proxy.faults.length} injected in ${requests} requests that reached the server; ` +
        `up, rename/delete and destroy each converged in one run\n`,
    );
  });
});
