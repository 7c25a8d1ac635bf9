/**
 * The built plugin (`dist/provider/plugin/main.js`; `npm run build` first) in a process of its own, as
 * the engine starts it, and a gRPC client of it whose unary calls are promises. The plugin's
 * integration tests share it.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";

import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckRequest,
  type CheckResponse,
  ConfigureRequest,
  type ConfigureResponse,
  type ConstructRequest,
  type ConstructResponse,
  CreateRequest,
  type CreateResponse,
  DeleteRequest,
  DiffRequest,
  type DiffResponse,
  type GetSchemaRequest,
  type GetSchemaResponse,
  type InvokeRequest,
  type InvokeResponse,
  type ReadRequest,
  type ReadResponse,
  UpdateRequest,
  type UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { expect } from "vitest";

const PLUGIN = join(__dirname, "..", "..", "dist", "provider", "plugin", "main.js");

/** The resource type the plugin serves. */
export const TYPE = "notification-handlers:index:NotificationHandler";

/** A resource's URN in the tests' stack. */
export const urnOf = (name: string): string => `urn:pulumi:test::plugin::${TYPE}::${name}`;

// The engine's encoding of special values, written out here so the tests do not trust the plugin's.
/** A value as the engine wraps a secret. */
export const SECRET = (value: unknown): Record<string, unknown> => ({
  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
  value,
});
/** The engine's unknown value (a preview's). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Plain values as a protobuf Struct. */
export const struct = (values: Record<string, unknown>): Struct => Struct.fromJavaScript(values as never);

/** One unary call, as a promise. */
function unary<Res>(
  start: (done: (error: grpc.ServiceError | null, response: Res) => void) => unknown,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    start((error, response) => (error === null ? resolve(response) : reject(error)));
  });
}

/** A running plugin process and its calls. */
export class PluginProcess {
  private output = "";

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly client: ResourceProviderClient,
  ) {
    child.stderr.setEncoding("utf8").on("data", (text: string) => (this.output += text));
  }

  /**
   * Starts the plugin as the engine does (its address as the last argument), with only PATH in its
   * environment: the settings must come from Configure, not from the tests' environment.
   */
  static async start(): Promise<PluginProcess> {
    const child = spawn(process.execPath, [PLUGIN, "127.0.0.1:1"], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    expect(line).toMatch(/^\d+$/);
    const client = new ResourceProviderClient(`127.0.0.1:${line}`, grpc.credentials.createInsecure());
    return new PluginProcess(child, client);
  }

  /** What the plugin wrote to stderr so far (its notes). */
  get stderr(): string {
    return this.output;
  }

  /** Configures the plugin with a server and a key (sent as a secret) and further settings. */
  configureFor(
    baseUrl: string,
    apiKey: string,
    settings: Record<string, unknown> = {},
  ): Promise<ConfigureResponse> {
    const args = struct({ baseUrl, apiKey: SECRET(apiKey), ...settings });
    return this.configure(new ConfigureRequest().setArgs(args).setAcceptsecrets(true));
  }

  getPluginInfo = (r: Empty): Promise<PluginInfo> => unary((done) => this.client.getPluginInfo(r, done));
  getSchema = (r: GetSchemaRequest): Promise<GetSchemaResponse> =>
    unary((done) => this.client.getSchema(r, done));
  checkConfig = (r: CheckRequest): Promise<CheckResponse> =>
    unary((done) => this.client.checkConfig(r, done));
  configure = (r: ConfigureRequest): Promise<ConfigureResponse> =>
    unary((done) => this.client.configure(r, done));
  check = (r: CheckRequest): Promise<CheckResponse> => unary((done) => this.client.check(r, done));
  diff = (r: DiffRequest): Promise<DiffResponse> => unary((done) => this.client.diff(r, done));
  create = (r: CreateRequest): Promise<CreateResponse> => unary((done) => this.client.create(r, done));
  read = (r: ReadRequest): Promise<ReadResponse> => unary((done) => this.client.read(r, done));
  update = (r: UpdateRequest): Promise<UpdateResponse> => unary((done) => this.client.update(r, done));
  delete = (r: DeleteRequest): Promise<Empty> => unary((done) => this.client.delete(r, done));
  invoke = (r: InvokeRequest): Promise<InvokeResponse> => unary((done) => this.client.invoke(r, done));
  construct = (r: ConstructRequest): Promise<ConstructResponse> =>
    unary((done) => this.client.construct(r, done));
  cancel = (r: Empty): Promise<Empty> => unary((done) => this.client.cancel(r, done));

  /** Ends the process as the engine does, with a signal. */
  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGTERM");
    await exited;
  }
}

/** The plugin processes a file's tests start, one per run of the engine, stopped together after. */
export class PluginRuns {
  private readonly started: PluginProcess[] = [];

  /** A new plugin process, as each run of the engine starts one, configured as `configureFor` says. */
  async next(
    baseUrl: string,
    apiKey: string,
    settings: Record<string, unknown> = {},
  ): Promise<PluginProcess> {
    const plugin = await PluginProcess.start();
    this.started.push(plugin);
    await plugin.configureFor(baseUrl, apiKey, settings);
    return plugin;
  }

  /** Stops every process started. */
  async stopAll(): Promise<void> {
    for (const plugin of this.started) await plugin.stop();
  }
}

/** The inputs Check returns for handler `name`'s `news`, which must pass it. */
export async function checkedInputs(
  plugin: PluginProcess,
  name: string,
  news: Record<string, unknown>,
): Promise<Struct> {
  const response = await plugin.check(
    new CheckRequest().setUrn(urnOf(name)).setType(TYPE).setNews(struct(news)),
  );
  expect(response.getFailuresList()).toEqual([]);
  return response.getInputs()!;
}

// The engine's requests for one handler, named by its URN's last part.
/** Create handler `name` with `properties`. */
export const createRequest = (name: string, properties: Struct | undefined): CreateRequest =>
  new CreateRequest().setUrn(urnOf(name)).setType(TYPE).setProperties(properties);
/** Diff handler `name`'s stored `olds` with `news`. */
export const diffRequest = (
  id: string,
  name: string,
  olds: Struct | undefined,
  news: Struct | undefined,
): DiffRequest => new DiffRequest().setId(id).setUrn(urnOf(name)).setType(TYPE).setOlds(olds).setNews(news);
/** Update handler `name` from `olds` to `news`. */
export const updateRequest = (
  id: string,
  name: string,
  olds: Struct | undefined,
  news: Struct | undefined,
): UpdateRequest =>
  new UpdateRequest().setId(id).setUrn(urnOf(name)).setType(TYPE).setOlds(olds).setNews(news);
/** Delete handler `name`, whose outputs are `properties`. */
export const deleteRequest = (id: string, name: string, properties: Struct | undefined): DeleteRequest =>
  new DeleteRequest().setId(id).setUrn(urnOf(name)).setType(TYPE).setProperties(properties);
