/** The client on an injected undici dispatcher (MockAgent): no sockets at all. */

import { MockAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotificationHandlersClient, NotFoundError } from "../../sdk/client";
import { handler } from "../support/servers/scripted-server";

const ORIGIN = "https://handlers.example.test";
let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});

afterEach(async () => {
  await agent.close();
});

describe("an injected dispatcher", () => {
  it("carries every request, and close() leaves it open for its owner", async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: "/app/api/notification-handlers/5", method: "GET" })
      .reply(200, { data: handler(5) }, { headers: { "content-type": "application/json" } });
    pool.intercept({ path: "/app/api/notification-handlers/6", method: "GET" }).reply(
      404,
      { errors: [{ title: "The resource you are looking for does not exist.", status: 404 }] },
      {
        headers: { "content-type": "application/json" },
      },
    );
    const first = new NotificationHandlersClient({
      baseURL: `${ORIGIN}/app`,
      apiKey: "k-mock",
      dispatcher: agent,
    });
    expect((await first.notificationHandlers.retrieve(5)).name).toBe("handler 5");
    await first.close();

    const second = new NotificationHandlersClient({
      baseURL: `${ORIGIN}/app/`,
      apiKey: "k-mock",
      dispatcher: agent,
    });
    await expect(second.notificationHandlers.retrieve(6)).rejects.toBeInstanceOf(NotFoundError);
    await second.close();
    agent.assertNoPendingInterceptors();
  });

  it("sends the Authorization header", async () => {
    agent
      .get(ORIGIN)
      .intercept({
        path: "/api/notification-handlers/1",
        method: "DELETE",
        headers: { authorization: "Bearer k-mock" },
      })
      .reply(204, "");
    const client = new NotificationHandlersClient({ baseURL: ORIGIN, apiKey: "k-mock", dispatcher: agent });
    await expect(client.notificationHandlers.delete(1)).resolves.toBeUndefined();
    await client.close();
  });
});
