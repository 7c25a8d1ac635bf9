/**
 * The resource provider plugin as the engine drives it: the compiled `dist/provider/plugin/main.js`
 * (build first with `npm run build`) in a process of its own, reached over gRPC with the generated
 * client, in front of the reference server. The calls follow a resource's life: configuration,
 * checks, create, drift, update, import, lookups, delete, cancel.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

import * as grpc from "@grpc/grpc-js";
import {
  CheckRequest,
  ConfigureRequest,
  type ConfigureResponse,
  ConstructRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  DiffResponse,
  GetSchemaRequest,
  InvokeRequest,
  PropertyDiff,
  ReadRequest,
  UpdateRequest,
} from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { pulumiSchema } from "../../provider/plugin/schema";
import { pluginDownloadUrl } from "../../provider/tokens";
import { NotificationHandlersClient } from "../../sdk/client/client";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import { PluginProcess, SECRET, TYPE, UNKNOWN, struct, urnOf } from "../support/plugin-process";
import { type TestServer, startServer } from "../support/servers/server-under-test";

const ROOT = join(__dirname, "..", "..");
const SLACK_URL = "https://hooks.slack.com/services/T0PLUGIN/B0PLUGIN/s3cr3tW3bh00k";

let server: TestServer | undefined;
let direct: NotificationHandlersClient | undefined;
const plugins: PluginProcess[] = [];
let apiKey = "";

/** Starts another plugin process; the calls below go to it. */
async function startPlugin(): Promise<void> {
  plugins.push(await PluginProcess.start());
}

beforeAll(async () => {
  server = await startServer();
  apiKey = await server.key();
  direct = new NotificationHandlersClient({ baseURL: server.url, apiKey });
  await startPlugin();
});

afterAll(async () => {
  for (const running of plugins) await running.stop();
  await direct?.close();
  await server?.close();
});

/** The plugin started last. */
const plugin = (): PluginProcess => {
  const running = plugins.at(-1);
  if (running === undefined) throw new Error("the plugin did not start");
  return running;
};

/** Configures the plugin started last with the test server and its key (a secret). */
async function configure(): Promise<ConfigureResponse> {
  return plugin().configureFor(server!.url, apiKey, { maxRetries: 0 });
}

/** Every handler the server holds. */
async function stored(): Promise<NotificationHandlerRecord[]> {
  const all: NotificationHandlerRecord[] = [];
  for await (const handler of direct!.notificationHandlers.list({ results_per_page: 1000 }))
    all.push(handler);
  return all;
}

const slackInputs = { type: "slack", name: "Ops alerts", slack: SECRET(SLACK_URL) };

describe("the plugin over gRPC", () => {
  let id = "";
  let outputs: Struct | undefined;
  let checked: Struct | undefined;

  it("reports its version and the package schema", async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const info = await plugin().getPluginInfo(new Empty());
    expect(info.getVersion()).toBe(manifest.version);
    const schema = await plugin().getSchema(new GetSchemaRequest());
    expect(JSON.parse(schema.getSchema())).toEqual({
      ...pulumiSchema(),
      version: manifest.version,
      pluginDownloadURL: pluginDownloadUrl(manifest.version),
    });
    expect(pulumiSchema().name).toBe("notification-handlers");
  });

  it("CheckConfig names a bad updateStrategy and a key that is not the provider's", async () => {
    const request = new CheckRequest()
      .setUrn("urn:pulumi:test::plugin::pulumi:providers:notification-handlers::default")
      .setNews(struct({ baseUrl: server!.url, updateStrategy: "sideways", baseURL: "typo" }));
    const response = await plugin().checkConfig(request);
    expect(response.getFailuresList().map((f) => f.toObject())).toEqual([
      // No failure names a property: the engine would print its value.
      {
        property: "",
        reason: 'notification-handlers:updateStrategy must be one of "in-place", "replace" (got "sideways")',
      },
      {
        property: "",
        reason:
          "notification-handlers:baseURL is not a configuration key of notification-handlers (the keys: baseUrl, apiKey, updateStrategy, requestTimeoutMs, maxRetries)",
      },
    ]);
  });

  it("Configure takes the API key as a secret and accepts secrets and previews", async () => {
    const response = await configure();
    expect(response.toObject()).toMatchObject({
      acceptsecrets: true,
      supportspreview: true,
      acceptresources: false,
      acceptoutputs: false,
    });
  });

  it("Check names a missing field and a bad email, and writes nothing", async () => {
    const missing = await plugin().check(
      new CheckRequest()
        .setUrn(urnOf("ops"))
        .setType(TYPE)
        .setNews(struct({ type: "slack" })),
    );
    expect(missing.getFailuresList().map((f) => f.toObject())).toEqual([
      { property: "", reason: "slack is required for type slack" },
    ]);
    // A name left out is the resource's, as the TypeScript resource makes it.
    expect(missing.getInputs()?.toJavaScript()).toEqual({ type: "slack", name: "ops" });

    const badEmail = await plugin().check(
      new CheckRequest()
        .setUrn(urnOf("mail"))
        .setType(TYPE)
        .setNews(struct({ type: "email", name: "Mail", email: "not-an-email" })),
    );
    expect(badEmail.getFailuresList().map((f) => f.toObject())).toEqual([
      { property: "", reason: "email must be an email address" },
    ]);
    expect(await stored()).toEqual([]);
  });

  it("Check returns the inputs with the credential field secret, however it came", async () => {
    const response = await plugin().check(
      new CheckRequest().setUrn(urnOf("ops")).setType(TYPE).setNews(struct(slackInputs)),
    );
    expect(response.getFailuresList()).toHaveLength(0);
    checked = response.getInputs();
    expect(checked?.toJavaScript()).toEqual(slackInputs);

    // Sent in plain text (a program that did not mark it), it comes back a secret.
    const plain = await plugin().check(
      new CheckRequest()
        .setUrn(urnOf("ops"))
        .setType(TYPE)
        .setNews(struct({ ...slackInputs, slack: SLACK_URL })),
    );
    expect(plain.getInputs()?.toJavaScript()).toEqual(slackInputs);
  });

  it("Create in a preview writes nothing and leaves what only the API knows unknown", async () => {
    const response = await plugin().create(
      new CreateRequest().setUrn(urnOf("ops")).setType(TYPE).setProperties(checked).setPreview(true),
    );
    expect(response.getId()).toBe("");
    expect(response.getProperties()?.toJavaScript()).toEqual({
      ...slackInputs,
      isEnabled: true,
      handlerId: UNKNOWN,
      datetime: UNKNOWN,
      pendingConfirmation: UNKNOWN,
      settings: SECRET(UNKNOWN),
      lastDatetime: UNKNOWN,
    });

    // A type with no credential field keeps its settings readable: an email address is no secret.
    const email = { type: "email", name: "Mail", email: "ops@example.com" };
    const mail = await plugin().create(
      new CreateRequest().setUrn(urnOf("mail")).setType(TYPE).setProperties(struct(email)).setPreview(true),
    );
    expect(mail.getProperties()?.toJavaScript()).toMatchObject({ ...email, settings: UNKNOWN });
    expect(await stored()).toEqual([]);
  });

  it("Create makes the handler, and its credentials come back as secrets", async () => {
    const response = await plugin().create(
      new CreateRequest().setUrn(urnOf("ops")).setType(TYPE).setProperties(checked),
    );
    const handlers = await stored();
    expect(handlers).toHaveLength(1);
    expect(handlers[0]).toMatchObject({ type: "slack", name: "Ops alerts", settings: { slack: SLACK_URL } });
    id = response.getId();
    expect(id).toBe(String(handlers[0]!.id));
    outputs = response.getProperties();
    expect(outputs?.toJavaScript()).toEqual({
      ...slackInputs,
      isEnabled: true,
      handlerId: handlers[0]!.id,
      pendingConfirmation: false,
      settings: SECRET({ slack: SLACK_URL }),
      lastDatetime: handlers[0]!.last_datetime,
      datetime: handlers[0]!.datetime,
      // What the create applied, as digests, secret as the type has a credential field
      // (provider/core/applied-record.ts).
      __applied: SECRET(
        Object.fromEntries(
          ["type", "name", "isEnabled", "slack"].map((p) => [
            p,
            expect.stringMatching(/^[0-9a-f]{12}$/) as string,
          ]),
        ),
      ),
    });
  });

  it("Diff, in the next run's plugin, names the field edited in the API directly, in place", async () => {
    await direct!.notificationHandlers.update(Number(id), { name: "Renamed in the web UI" });
    // Each run of the engine starts its plugins anew; a process reads the account once.
    await plugins[0]!.stop();
    await startPlugin();
    await configure();
    const response = await plugin().diff(
      new DiffRequest().setId(id).setUrn(urnOf("ops")).setType(TYPE).setOlds(outputs).setNews(checked),
    );
    expect(response.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
    expect(response.getDiffsList()).toEqual(["name"]);
    expect(response.getReplacesList()).toEqual([]);
    expect(response.getHasdetaileddiff()).toBe(true);
    const detailed = response.getDetaileddiffMap();
    expect(detailed.getLength()).toBe(1);
    expect(detailed.get("name")?.getKind()).toBe(PropertyDiff.Kind.UPDATE);
  });

  it("Update in a preview writes nothing; Update brings the handler back to the program", async () => {
    const update = (preview: boolean): UpdateRequest =>
      new UpdateRequest()
        .setId(id)
        .setUrn(urnOf("ops"))
        .setType(TYPE)
        .setOlds(outputs)
        .setNews(checked)
        .setPreview(preview);
    const previewed = await plugin().update(update(true));
    expect(previewed.getProperties()?.toJavaScript()).toMatchObject({
      name: "Ops alerts",
      handlerId: Number(id),
    });
    expect((await stored()).map((h) => h.name)).toEqual(["Renamed in the web UI"]);

    const response = await plugin().update(update(false));
    expect((await stored()).map((h) => h.name)).toEqual(["Ops alerts"]);
    expect(response.getProperties()?.toJavaScript()).toMatchObject({
      name: "Ops alerts",
      handlerId: Number(id),
      slack: SECRET(SLACK_URL),
      settings: SECRET({ slack: SLACK_URL }),
    });
  });

  it("Read with only the id and the URN (an import) returns the inputs without the credential", async () => {
    const response = await plugin().read(new ReadRequest().setId(id).setUrn(urnOf("imported")).setType(TYPE));
    expect(response.getId()).toBe(id);
    // Pulumi writes an import's inputs into the code it generates: the credential stays out.
    expect(response.getInputs()?.toJavaScript()).toEqual({
      type: "slack",
      name: "Ops alerts",
      isEnabled: true,
    });
    expect(response.getProperties()?.toJavaScript()).toMatchObject({
      handlerId: Number(id),
      slack: SECRET(SLACK_URL),
      settings: SECRET({ slack: SLACK_URL }),
    });
  });

  it("Invoke runs both lookups, settings secret, and names a bad argument", async () => {
    const one = await plugin().invoke(
      new InvokeRequest()
        .setTok("notification-handlers:index:getNotificationHandler")
        .setArgs(struct({ name: "Ops alerts", type: "slack" })),
    );
    expect(one.getFailuresList()).toHaveLength(0);
    expect(one.getReturn()?.toJavaScript()).toMatchObject({
      handlerId: Number(id),
      type: "slack",
      name: "Ops alerts",
      isEnabled: true,
      settings: SECRET({ slack: SLACK_URL }),
    });

    const all = await plugin().invoke(
      new InvokeRequest()
        .setTok("notification-handlers:index:getNotificationHandlers")
        .setArgs(struct({ type: "slack" })),
    );
    const handlers = all.getReturn()?.toJavaScript().handlers as Record<string, unknown>[];
    expect(handlers).toHaveLength(1);
    expect(handlers[0]).toMatchObject({ handlerId: Number(id), settings: SECRET({ slack: SLACK_URL }) });

    const none = await plugin().invoke(
      new InvokeRequest()
        .setTok("notification-handlers:index:getNotificationHandlers")
        .setArgs(struct({ type: "email" })),
    );
    expect(none.getReturn()?.toJavaScript()).toEqual({ handlers: [] });

    const bad = await plugin().invoke(
      new InvokeRequest()
        .setTok("notification-handlers:index:getNotificationHandler")
        .setArgs(struct({ type: "pager" })),
    );
    expect(bad.getFailuresList().map((f) => f.toObject())).toEqual([
      { property: "name", reason: "is required: the handler's name" },
      {
        property: "type",
        reason:
          'must be one of email, webhook, slack, discord, telegram, microsoft_teams, twilio, twilio_call, whatsapp, x, google_chat, internal_notification (got "pager")',
      },
    ]);
  });

  it("refuses another resource type, naming it", async () => {
    const request = new CheckRequest()
      .setUrn("urn:pulumi:test::plugin::notification-handlers:index:Monitor::m")
      .setType("notification-handlers:index:Monitor")
      .setNews(struct({}));
    await expect(plugin().check(request)).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details:
        'unknown resource type "notification-handlers:index:Monitor": this provider manages notification-handlers:index:NotificationHandler only',
    });
  });

  it("Construct refuses another component and bad sources, and a set with a problem before any registration", async () => {
    const folder = mkdtempSync(join(tmpdir(), "plugin-construct-"));
    try {
      const file = join(folder, "set.yaml");
      // Nothing listens on the monitor's address: a registration would fail with a connection error.
      const construct = (
        inputs: Record<string, unknown>,
        config: Record<string, string> = {},
      ): Promise<unknown> => {
        const request = new ConstructRequest()
          .setType("notification-handlers:index:HandlerSet")
          .setName("alerts")
          .setProject("plugin")
          .setStack("test")
          .setMonitorendpoint("127.0.0.1:1")
          .setInputs(struct(inputs));
        for (const [key, value] of Object.entries(config)) request.getConfigMap().set(key, value);
        return plugin().construct(request);
      };
      const refused = (details: string): object => ({ code: grpc.status.INVALID_ARGUMENT, details });
      await expect(
        plugin().construct(new ConstructRequest().setType("notification-handlers:index:Other").setName("x")),
      ).rejects.toMatchObject(
        refused(
          'unknown component type "notification-handlers:index:Other": this provider has notification-handlers:index:HandlerSet only',
        ),
      );
      await expect(construct({ files: "set.yaml" })).rejects.toMatchObject(
        refused("HandlerSet: files must be a list of strings (paths or globs of YAML files)"),
      );
      await expect(construct({ files: [file], handlers: {} })).rejects.toMatchObject(
        refused("HandlerSet takes either files (paths or globs of YAML files) or handlers (the set as data)"),
      );

      writeFileSync(file, "oncall:\n  type: email\n  email: not-an-address\n");
      await expect(construct({ files: [file] })).rejects.toMatchObject({
        code: grpc.status.UNKNOWN,
        details: `the handler set has 1 problem; nothing was changed:\n${file}:3:10: oncall.email: must be an email address`,
      });
      writeFileSync(file, "chat:\n  type: slack\n  slack: { secret: hook }\n");
      const missing =
        "the stack's config has no value for its secret key: set it with `pulumi config set --secret <key> ...`";
      await expect(construct({ files: [file] })).rejects.toMatchObject({
        details: `the handler set has 1 problem; nothing was changed:\n${file}:3:10: chat.slack: ${missing}`,
      });
      // The config as the engine spells a key, its value checked with the field's rule and never shown.
      await expect(
        construct({ files: [file] }, { "plugin:config:hook": "http://plain" }),
      ).rejects.toMatchObject({
        details: `the handler set has 1 problem; nothing was changed:\n${file}:3:10: chat.slack: the value in the stack's config must be an absolute https URL`,
      });
      await expect(construct({ handlers: { x: { type: "email" } } })).rejects.toMatchObject({
        details:
          "the handler set has 1 problem; nothing was changed:\nhandlers: x.email: is required for type email",
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("Delete removes the handler from the server", async () => {
    await plugin().delete(
      new DeleteRequest().setId(id).setUrn(urnOf("ops")).setType(TYPE).setProperties(outputs),
    );
    expect(await stored()).toEqual([]);
  });

  it("after Cancel, a create is refused before anything is written", async () => {
    await plugin().cancel(new Empty());
    await expect(
      plugin().create(new CreateRequest().setUrn(urnOf("late")).setType(TYPE).setProperties(checked)),
    ).rejects.toMatchObject({
      code: grpc.status.UNKNOWN,
      details: "the operation was cancelled: a create was not started",
    });
    expect(await stored()).toEqual([]);
  });

  it("a create with a custom timeout stops retrying at the deadline, naming it", async () => {
    // A site that answers every request 503: the client would retry it 6 times over about 30 s.
    let attempts = 0;
    const failing = createServer((_request, response) => {
      attempts += 1;
      response.writeHead(503, { "content-type": "application/json" }).end('{"errors":[]}');
    });
    await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
    try {
      await startPlugin();
      const { port } = failing.address() as AddressInfo;
      await plugin().configure(
        new ConfigureRequest()
          .setArgs(struct({ baseUrl: `http://127.0.0.1:${port}`, apiKey: SECRET(apiKey), maxRetries: 6 }))
          .setAcceptsecrets(true),
      );
      const create = new CreateRequest()
        .setUrn(urnOf("slow"))
        .setType(TYPE)
        .setProperties(checked)
        .setTimeout(1); // seconds, as the engine sends customTimeouts
      await expect(plugin().create(create)).rejects.toMatchObject({
        details:
          "the create of slow did not finish within its custom timeout of 1 s: a retry was not started",
      });
      expect(attempts).toBeGreaterThanOrEqual(1);
      expect(attempts).toBeLessThan(7);
    } finally {
      failing.close();
    }
  });

  it("never wrote the API key or the webhook URL to its stderr", () => {
    // Its notes went there: the drift the second run found.
    const stderr = plugins.map((p) => p.stderr).join("");
    expect(stderr).toContain(
      `handler ${id} ("Renamed in the web UI", in the code "Ops alerts") differs from the program:`,
    );
    expect(stderr).not.toContain(apiKey);
    expect(stderr).not.toContain(SLACK_URL);
  });
});
