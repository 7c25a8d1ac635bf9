/**
 * Several accounts in one program, over fake APIs and without the engine: each resource's calls go to
 * its own connection (or the provider's configuration), with one client, one account snapshot and
 * one set of claims per connection; moving a handler to another site replaces it, a new key for the
 * same site does not; the key never shows in a message.
 */
import { describe, expect, it } from "vitest";

import type { HandlerInputs } from "../../provider/core/inputs";
import { UNKNOWN } from "../../provider/core/inputs";
import * as operations from "../../provider/core/operations";
import { readSettings } from "../../provider/core/config";
import { DEFAULT_CONNECTION, FakeApi, type FakeAccount, fakeContext } from "../support/fake-api";

const STAGING = { baseUrl: "https://staging.example.com", apiKey: "staging-key-0123456789" };
const PRODUCTION = { baseUrl: "https://production.example.com", apiKey: "production-key-0123456789" };

const email = (name: string, over: Partial<HandlerInputs> = {}): HandlerInputs => ({
  type: "email",
  name,
  email: `${name.toLowerCase().replaceAll(" ", "-")}@example.com`,
  ...over,
});

/** Two sites besides the provider's configuration, each a fake account. */
function twoSites(): {
  staging: FakeApi;
  production: FakeApi;
  configured: FakeApi;
  accounts: FakeAccount[];
} {
  const staging = new FakeApi();
  const production = new FakeApi();
  return {
    staging,
    production,
    configured: new FakeApi(),
    accounts: [
      { ...STAGING, api: staging },
      { ...PRODUCTION, api: production },
    ],
  };
}

const names = (api: FakeApi): string[] => [...api.store.values()].map((h) => h.name).sort();

describe("resources on several connections", () => {
  it("creates each handler in its own account, one client and one snapshot per connection", async () => {
    const { staging, production, configured, accounts } = twoSites();
    const { ctx, built } = fakeContext(configured, accounts);
    await Promise.all([
      operations.create(ctx, email("Ops", { connection: STAGING })),
      operations.create(ctx, email("Oncall", { connection: STAGING })),
      operations.create(ctx, email("Ops", { connection: PRODUCTION })),
      operations.create(ctx, email("Default")),
    ]);
    expect(names(staging)).toEqual(["Oncall", "Ops"]);
    expect(names(production)).toEqual(["Ops"]);
    expect(names(configured)).toEqual(["Default"]);
    expect(built.sort()).toEqual([DEFAULT_CONNECTION.baseUrl, PRODUCTION.baseUrl, STAGING.baseUrl].sort());
    // Each account's snapshot is read once, before its first create.
    expect(staging.calls.list).toBeLessThanOrEqual(2);
    expect(ctx.site(STAGING).account.loaded).toBe(true);
  });

  it("records the connection in the outputs, and deletes through it", async () => {
    const { staging, configured, accounts } = twoSites();
    const { ctx } = fakeContext(configured, accounts);
    const made = await operations.create(ctx, email("Ops", { connection: STAGING }));
    expect(made.outs.connection).toEqual(STAGING);
    // The same id exists in the configured account too: only the staging one may be deleted.
    configured.seed({ type: "email", name: "Same id elsewhere" });
    await operations.remove(ctx, made.id, made.outs);
    expect(staging.store.size).toBe(0);
    expect(configured.store.size).toBe(1);
  });

  it("keeps claims per connection: the same id on two sites is adopted by one resource each", async () => {
    const { staging, production, configured, accounts } = twoSites();
    const onStaging = staging.seed({ type: "email", name: "Ops", settings: { email: "ops@example.com" } });
    const onProduction = production.seed({
      type: "email",
      name: "Ops",
      settings: { email: "ops@example.com" },
    });
    expect(onStaging.id).toBe(onProduction.id);
    const { ctx } = fakeContext(configured, accounts);
    const a = await operations.create(ctx, email("Ops", { adopt: true, connection: STAGING }));
    const b = await operations.create(ctx, email("Ops", { adopt: onProduction.id, connection: PRODUCTION }));
    expect([a.id, b.id]).toEqual([String(onStaging.id), String(onProduction.id)]);
    expect(staging.calls.create + production.calls.create).toBe(0);
    // Within one account the claim holds.
    await expect(
      operations.create(ctx, email("Ops", { adopt: onStaging.id, connection: STAGING })),
    ).rejects.toThrow(/already managed by another resource/);
  });

  it("finds drift on each site from that site's snapshot", async () => {
    const { staging, production, configured, accounts } = twoSites();
    const { ctx, notes } = fakeContext(configured, accounts);
    const a = await operations.create(ctx, email("Ops", { connection: STAGING }));
    const b = await operations.create(ctx, email("Ops", { connection: PRODUCTION }));
    staging.store.get(Number(a.id))!.name = "Renamed on staging";
    production.store.delete(Number(b.id));

    // A new process, as the next `pulumi preview` is.
    const next = fakeContext(configured, accounts);
    const onStaging = await operations.diff(next.ctx, a.id, a.outs, email("Ops", { connection: STAGING }));
    const onProduction = await operations.diff(
      next.ctx,
      b.id,
      b.outs,
      email("Ops", { connection: PRODUCTION }),
    );
    expect(onStaging).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false, changed: ["name"] });
    expect(onProduction).toMatchObject({ changes: true, replaces: ["handlerId"] });
    expect(next.notes.join("\n")).toContain('name: live "Renamed on staging", desired "Ops"');
    expect(next.notes.join("\n")).toContain(`handler ${b.id} ("Ops") no longer exists in the API`);
    expect(configured.calls.list).toBe(0);
    expect(notes.concat(next.notes).join("\n")).not.toMatch(/staging-key|production-key|test-key/);
  });

  it("replaces a handler moved to another site, naming both sites and no key", async () => {
    const { configured, accounts } = twoSites();
    const { ctx, notes } = fakeContext(configured, accounts);
    const made = await operations.create(ctx, email("Ops", { connection: STAGING }));
    const moved = await operations.diff(ctx, made.id, made.outs, email("Ops", { connection: PRODUCTION }));
    expect(moved).toEqual({
      changes: true,
      replaces: ["connection"],
      deleteBeforeReplace: false,
      changed: ["connection"],
    });
    const note = notes.join("\n");
    expect(note).toContain(`moves from https://staging.example.com/ to https://production.example.com/`);
    expect(note).not.toMatch(/staging-key|production-key/);
  });

  it("moving from the provider's configuration to a connection of the same site and key changes nothing in the API", async () => {
    const { configured, accounts } = twoSites();
    const { ctx } = fakeContext(configured, accounts);
    const made = await operations.create(ctx, email("Ops"));
    const explicit = email("Ops", { connection: { ...DEFAULT_CONNECTION, baseUrl: "http://127.0.0.1:1/" } });
    const result = await operations.diff(ctx, made.id, made.outs, explicit);
    expect(result).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      changed: ["connection"],
    });
    const updated = await operations.update(ctx, made.id, made.outs, explicit);
    expect(configured.calls.update).toBe(0);
    expect(updated.outs.connection).toEqual(explicit.connection);
  });

  it("a new key for the same site (rotation) updates the state only, reading through the new key", async () => {
    const shared = new FakeApi();
    const rotated = { ...STAGING, apiKey: "staging-key-rotated-0123456789" };
    const { ctx } = fakeContext(new FakeApi(), [
      { ...STAGING, api: shared },
      { ...rotated, api: shared },
    ]);
    const made = await operations.create(ctx, email("Ops", { connection: STAGING }));
    const next = fakeContext(new FakeApi(), [{ ...rotated, api: shared }]);
    const result = await operations.diff(next.ctx, made.id, made.outs, email("Ops", { connection: rotated }));
    expect(result).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      changed: ["connection"],
    });
    const updated = await operations.update(
      next.ctx,
      made.id,
      made.outs,
      email("Ops", { connection: rotated }),
    );
    expect(shared.calls.update).toBe(0);
    expect(updated.outs.connection).toEqual(rotated);
    expect(next.built).toEqual([STAGING.baseUrl]);
  });

  it("a connection not known yet (preview) shows a possible replacement without reading", async () => {
    const { configured, accounts } = twoSites();
    const { ctx, built } = fakeContext(configured, accounts);
    const result = await operations.diff(
      ctx,
      "7",
      email("Ops", { connection: STAGING }),
      email("Ops", { connection: { baseUrl: STAGING.baseUrl, apiKey: UNKNOWN } }),
    );
    expect(result).toEqual({
      changes: true,
      replaces: ["connection"],
      deleteBeforeReplace: false,
      changed: ["connection"],
    });
    expect(built).toEqual([]);
  });

  it("refresh reads through the recorded connection and keeps it (and its key) out of the recorded inputs", async () => {
    const { staging, configured, accounts } = twoSites();
    const { ctx } = fakeContext(configured, accounts);
    const made = await operations.create(ctx, email("Ops", { connection: STAGING }));
    staging.store.get(Number(made.id))!.is_enabled = false;
    const next = fakeContext(configured, accounts); // a new process, as `pulumi refresh` is
    const read = await operations.read(next.ctx, made.id, made.outs);
    expect(read.props).toMatchObject({ isEnabled: false, connection: STAGING });
    expect(read.inputs).not.toHaveProperty("connection");
  });
});

describe("checking a connection", () => {
  const check = async (connection: unknown, configured = true): Promise<string[]> => {
    const { ctx } = fakeContext(new FakeApi());
    if (!configured) ctx.settings = readSettings(() => undefined, {});
    const { failures } = await operations.check(ctx, email("Ops", { connection }));
    return failures.map((f) => `${f.property}|${f.reason}`);
  };

  it("accepts a complete connection without the provider's configuration", async () => {
    expect(await check(STAGING, false)).toEqual([]);
  });

  it("names the field and its rule, on the resource, never showing the key", async () => {
    expect(await check({ baseUrl: "staging.example.com", apiKey: "secret-key-xyz" })).toEqual([
      "|connection.baseUrl must be an absolute http or https URL, such as https://example.com",
    ]);
    expect(await check({ baseUrl: "ftp://example.com", apiKey: "secret-key-xyz" })).toHaveLength(1);
    expect(await check({ baseUrl: STAGING.baseUrl, apiKey: " " })).toEqual([
      "|connection.apiKey is required: the API key of the account on that site (a secret)",
    ]);
    expect(await check({ apiKey: "secret-key-xyz", token: "x" })).toEqual([
      "|connection.token is not a field of a connection",
      "|connection.baseUrl is required: the site's URL, such as https://example.com",
    ]);
    expect(await check("https://example.com")).toEqual([
      "|connection must be an object with baseUrl and apiKey",
    ]);
    expect((await check({ baseUrl: "nope", apiKey: "secret-key-xyz" })).join("\n")).not.toContain(
      "secret-key-xyz",
    );
  });

  it("without a connection, still asks for the provider's configuration", async () => {
    await expect(check(undefined, false)).rejects.toThrow(/No API key for the Notification Handlers API/);
  });
});
