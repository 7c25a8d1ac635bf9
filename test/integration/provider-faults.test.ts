/**
 * The provider's operations with the real client, without the engine, through the fault-injecting
 * proxy in front of the reference server: creates, updates and deletes made side by side converge,
 * with no duplicate and no orphan, although a quarter of the requests meet a fault.
 */
import { afterAll, expect, it } from "vitest";

import { CONFIG_KEYS, readSettings } from "../../provider/core/config";
import { ProviderContext } from "../../provider/core/context";
import type { HandlerInputs } from "../../provider/core/inputs";
import * as operations from "../../provider/core/operations";
import { NotificationHandlersClient } from "../../sdk/client/client";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import { type FaultProxy, startFaultProxy } from "../support/servers/fault-proxy";
import { type TestServer, startServer } from "../support/servers/server-under-test";

let server: TestServer | undefined;
let proxy: FaultProxy | undefined;
let direct: NotificationHandlersClient | undefined;
afterAll(async () => {
  await direct?.close();
  await proxy?.close();
  await server?.close();
});

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const email = (i: number, name = `handler ${i}`): HandlerInputs => ({
  type: "email",
  name,
  email: `h${i}@example.com`,
});

it(
  "20 creates, then 5 renames and 5 deletes, converge through 25% faults",
  { timeout: 120_000 },
  async () => {
    server = await startServer();
    const key = await server.key();
    proxy = await startFaultProxy(server.url, { rate: 0.25, seed: 3, slowMs: 1_500 });
    const notes: string[] = [];
    const ctx = new ProviderContext({ note: (m) => notes.push(m) });
    const config: Record<string, string> = {
      [CONFIG_KEYS.baseUrl]: proxy.url,
      [CONFIG_KEYS.apiKey]: key,
      [CONFIG_KEYS.requestTimeoutMs]: "1000",
    };
    ctx.settings = readSettings((k) => config[k], {}); // the process's environment plays no part

    const made = await Promise.all(range(0, 20).map((i) => operations.create(ctx, email(i))));
    await Promise.all(
      range(0, 5).map((i) =>
        operations.update(ctx, made[i]?.id ?? "", email(i), email(i, `handler ${i} (renamed)`)),
      ),
    );
    await Promise.all(range(15, 20).map((i) => operations.remove(ctx, made[i]?.id ?? "")));

    direct = new NotificationHandlersClient({ baseURL: server.url, apiKey: key });
    const stored: NotificationHandlerRecord[] = [];
    for await (const h of direct.notificationHandlers.list({ results_per_page: 1000 })) stored.push(h);
    const byId = (a: number, b: number): number => a - b;
    expect(stored.map((h) => h.id).sort(byId)).toEqual(
      made
        .slice(0, 15)
        .map((m) => Number(m.id))
        .sort(byId),
    );
    expect(stored.map((h) => h.name).sort()).toEqual(
      [
        ...range(0, 5).map((i) => `handler ${i} (renamed)`),
        ...range(5, 15).map((i) => `handler ${i}`),
      ].sort(),
    );
    expect(proxy.faults.length).toBeGreaterThan(5);
    expect(notes.join("\n")).not.toContain(key);
  },
);
