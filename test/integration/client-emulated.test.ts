/**
 * The client's tolerant reading, tested against the three emulations of deployed instances
 * (`buildApp({ emulate })`, docs/api.md#deployed): the real `NotificationHandlersClient` over HTTP,
 * through create, retrieve, list (every page), update (never trusted), delete and the error classes.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import {
  AuthenticationError,
  NotificationHandlersClient,
  NotFoundError,
  PlanLimitError,
  RateLimitError,
  ServiceNotFoundError,
  ValidationError,
} from "../../sdk/client";
import type { BuildAppOptions, EmulatedVersion } from "../../server";
import { virtualClock } from "../support/servers/scripted-server";
import { type TestServer, serverForTest } from "../support/servers/server-under-test";

const VERSIONS = ["2023", "2025", "2026"] as const;

interface Setup {
  server: TestServer;
  key: string;
  client: NotificationHandlersClient;
}

async function setup(
  version: EmulatedVersion,
  options: Omit<BuildAppOptions, "repository" | "db" | "emulate"> = {},
): Promise<Setup> {
  const server = await serverForTest({ emulate: version, ...options });
  const key = await server.key("alice");
  const client = new NotificationHandlersClient({ baseURL: server.url, apiKey: key, maxRetries: 0 });
  onTestFinished(() => client.close());
  return { server, key, client };
}

async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

describe.each(VERSIONS)("the client against an emulated %s instance", (version) => {
  it("create: the id, and the whole handler when the answer carries it (2025 on)", async () => {
    const { client } = await setup(version);
    const created = await client.notificationHandlers.create({
      name: "Bot",
      type: "telegram",
      telegram: "123:abc",
      telegram_chat_id: "-100",
    });
    expect(created.id).toBe(1);
    if (version === "2023") {
      // 2023 answers the id alone (docs/api.md#deployed-create-answer).
      expect(created.handler).toBeNull();
    } else {
      // The whole handler from 2025 on, settings a JSON string in 2025 (docs/api.md#deployed-create-answer).
      expect(created.handler).toEqual({
        id: 1,
        type: "telegram",
        name: "Bot",
        settings: { telegram: "123:abc", telegram_chat_id: "-100" },
        is_enabled: true,
        is_pending: false,
        last_datetime: null,
        datetime: "2024-01-01 00:00:00",
      });
    }
  });

  it("create and retrieve an email handler: is_enabled, is_pending, settings as strings, no user_id", async () => {
    const { client } = await setup(version);
    const created = await client.notificationHandlers.create({
      name: "Ops",
      type: "email",
      email: "ops@example.com",
    });
    const pending = version === "2026"; // docs/api.md#deployed-is-enabled-values: 2 = enabled, pending
    if (version === "2026") {
      // Only the 2026 create answer shows `activation_code` (docs/api.md#deployed-create-answer).
      expect(created.handler?.settings["activation_code"]).toMatch(/^[0-9a-f]{32}$/);
    }
    const read = await client.notificationHandlers.retrieve(created.id);
    expect(read).toEqual({
      id: created.id,
      type: "email",
      name: "Ops",
      // docs/api.md#deployed-settings-string: `email_is_confirmed`, kept as a string by the client.
      settings: { email: "ops@example.com", email_is_confirmed: "false" },
      is_enabled: true,
      is_pending: pending,
      last_datetime: null,
      datetime: "2024-01-01 00:00:00",
    });
    expect(read).not.toHaveProperty("user_id");
  });

  // docs/api.md#deployed-whatsapp-integer: beyond 2^53 a plain JSON parse would round it.
  it("retrieve and list: a whatsapp integer beyond 2^53 keeps every digit", async () => {
    const { server, key, client } = await setup(version);
    const userId = (await server.repository.authenticate(key))?.userId ?? 0;
    const { id } = await server.repository.createHandler(
      userId,
      { type: "whatsapp", name: "Big", settings: { whatsapp: "12345678901234567" }, isEnabled: true },
      "2024-01-01 00:00:00",
    );
    expect((await client.notificationHandlers.retrieve(id)).settings.whatsapp).toBe("12345678901234567");
    const page = await client.notificationHandlers.list();
    expect(page.data.find((h) => h.id === id)?.settings.whatsapp).toBe("12345678901234567");
  });

  it("retrieve: cleaned values, whatsapp as its digits, an unknown type read as it is", async () => {
    const { server, key, client } = await setup(version);
    const { id } = await client.notificationHandlers.create({
      name: `<b>Team</b> "A" & 'B'`,
      type: "whatsapp",
      whatsapp: "+447700900123",
      is_enabled: false,
    });
    const read = await client.notificationHandlers.retrieve(id);
    expect(read).toMatchObject({
      name: "Team &#34;A&#34; & &#39;B&#39;",
      settings: { whatsapp: "447700900123" },
      is_enabled: false,
      is_pending: false,
    });
    // Some sites add types such as `push_subscriber_id` (docs/api.md#deployed-handler-types).
    const userId = (await server.repository.authenticate(key))?.userId ?? 0;
    const push = await server.repository.createHandler(
      userId,
      { type: "push_subscriber_id", name: "Push", settings: { push_subscriber_id: "abc" }, isEnabled: true },
      "2024-01-01 00:00:00",
    );
    expect(await client.notificationHandlers.retrieve(push.id)).toMatchObject({
      type: "push_subscriber_id",
      settings: { push_subscriber_id: "abc" },
    });
  });

  it("list: every page by async iteration, totals from total_results, a string page", async () => {
    const { client } = await setup(version);
    for (let i = 1; i <= 23; i++) {
      await client.notificationHandlers.create({ name: `handler ${i}`, type: "internal_notification" });
    }
    const first = await client.notificationHandlers.list({ results_per_page: 10 });
    expect(first.meta).toEqual({
      page: 1,
      results_per_page: 10,
      total: 23,
      total_pages: 3,
      dialect: "deployed",
    });
    expect(first.data).toHaveLength(10);
    const ids: number[] = [];
    for await (const handler of client.notificationHandlers.list({ results_per_page: 10 }))
      ids.push(handler.id);
    expect(ids).toEqual(Array.from({ length: 23 }, (_, i) => 23 - i));
    const third = await client.notificationHandlers.list({ results_per_page: 10, page: 3 });
    expect(third.data.map((h) => h.id)).toEqual([3, 2, 1]);
    expect(third.hasNextPage()).toBe(false);
  });

  it("list with a search: 2025 ignores it, so the caller must check the names it gets", async () => {
    const { client } = await setup(version);
    await client.notificationHandlers.create({ name: "needle", type: "internal_notification" });
    await client.notificationHandlers.create({ name: "hay", type: "internal_notification" });
    const names: string[] = [];
    for await (const handler of client.notificationHandlers.list({ search: "needle" }))
      names.push(handler.name);
    // docs/api.md#deployed-2025-list-ignores-filters
    expect(names).toEqual(version === "2025" ? ["hay", "needle"] : ["needle"]);
  });

  it("update: the answer is not trusted; the read back shows what the server did", async () => {
    const { client } = await setup(version);
    const { id } = await client.notificationHandlers.create({
      name: "Hook",
      type: "webhook",
      webhook: "https://example.com/hook",
    });
    const answer = await client.notificationHandlers.update(id, { name: "Renamed", is_enabled: false });
    const after = await client.notificationHandlers.retrieve(id);
    switch (version) {
      case "2023":
        // The id arrives as a string and is read as a number; the update worked.
        expect(answer.id).toBe(id);
        expect(after).toMatchObject({
          type: "webhook",
          name: "Renamed",
          settings: { webhook: "https://example.com/hook" },
          is_enabled: false,
        });
        break;
      case "2025":
        // docs/api.md#deployed-2025-update-saves-nothing
        expect(answer.id).toBeNull();
        expect(after).toMatchObject({ type: "webhook", name: "Hook", is_enabled: true, last_datetime: null });
        break;
      case "2026":
        // docs/api.md#deployed-2026-update-wipes-type: only `name` and `is_enabled` are saved.
        expect(answer.id).toBe(id);
        expect(after).toMatchObject({ type: null, name: "Renamed", settings: { "": "" }, is_enabled: false });
        break;
    }
  });

  it("update: is_enabled true is sent as 1, so the server does not read it as 0", async () => {
    const { client } = await setup(version);
    const { id } = await client.notificationHandlers.create({
      name: "n",
      type: "internal_notification",
      is_enabled: false,
    });
    expect((await client.notificationHandlers.retrieve(id)).is_enabled).toBe(false);
    await client.notificationHandlers.update(id, { is_enabled: true });
    // 2025 saves nothing; the others saved the 1 the client sent.
    expect((await client.notificationHandlers.retrieve(id)).is_enabled).toBe(version !== "2025");
  });

  it("delete: the 200 with an empty body is success; the handler is then a NotFoundError", async () => {
    const { client } = await setup(version);
    const { id } = await client.notificationHandlers.create({ name: "n", type: "internal_notification" });
    await expect(client.notificationHandlers.delete(id)).resolves.toBeUndefined();
    expect(await failure(client.notificationHandlers.retrieve(id))).toBeInstanceOf(NotFoundError);
    expect(await failure(client.notificationHandlers.delete(id))).toBeInstanceOf(NotFoundError);
  });

  it("errors: the 401 validation title is a ValidationError, the plan-limit title a PlanLimitError", async () => {
    const { client } = await setup(version, { disabledTypes: ["slack"], planLimit: 1 });
    const invalid = await failure(
      client.notificationHandlers.create({ name: "Ops", type: "email", email: "not-an-email" }),
    );
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).status).toBe(401);
    const disabled = await failure(
      client.notificationHandlers.create({ name: "S", type: "slack", slack: "https://hooks.slack.com/x" }),
    );
    expect(disabled).toBeInstanceOf(PlanLimitError);
    const unknown = await failure(
      client.notificationHandlers.create({ name: "P", type: "push_subscriber_id" } as never),
    );
    expect(unknown).toBeInstanceOf(PlanLimitError);
    await client.notificationHandlers.create({ name: "one", type: "internal_notification" });
    const overPlan = await failure(
      client.notificationHandlers.create({ name: "two", type: "internal_notification" }),
    );
    expect(overPlan).toBeInstanceOf(PlanLimitError);
  });

  it("errors: a wrong key is an AuthenticationError; a missing handler a NotFoundError", async () => {
    const { server, client } = await setup(version);
    const stranger = new NotificationHandlersClient({
      baseURL: server.url,
      apiKey: "nhk_0000000000000000_x",
    });
    onTestFinished(() => stranger.close());
    expect(await failure(stranger.notificationHandlers.list())).toBeInstanceOf(AuthenticationError);
    expect(await failure(client.notificationHandlers.retrieve(999))).toBeInstanceOf(NotFoundError);
  });

  it("errors: a site with the feature off is a ServiceNotFoundError, not a NotFoundError", async () => {
    const { client } = await setup(version, { featureOff: true });
    for (const call of [
      () => client.notificationHandlers.list(),
      () => client.notificationHandlers.retrieve(1),
      () => client.notificationHandlers.create({ name: "n", type: "internal_notification" }),
      () => client.notificationHandlers.delete(1),
    ]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(ServiceNotFoundError);
      expect(error).not.toBeInstanceOf(NotFoundError);
    }
  });

  it("rate limit: 70 requests against 60 a minute finish, paced on a shared virtual clock", async () => {
    const clock = virtualClock();
    const { server, key } = await setup(version, { rateLimit: 60, now: clock.now });
    const client = new NotificationHandlersClient({
      baseURL: server.url,
      apiKey: key,
      sleep: clock.sleep,
      now: clock.now,
    });
    onTestFinished(() => client.close());
    // docs/api.md#deployed-rate-limit: the 61st request must wait for the next window.
    const { id } = await client.notificationHandlers.create({ name: "n", type: "internal_notification" });
    let read = 0;
    for (let i = 0; i < 70; i++) {
      const handler = await client.notificationHandlers.retrieve(id).catch((error: unknown) => {
        expect(error).not.toBeInstanceOf(RateLimitError);
        throw error;
      });
      if (handler.id === id) read++;
    }
    expect(read).toBe(70);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(50_000);
  });
});
