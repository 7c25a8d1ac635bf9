/**
 * The catalog's rules as the provider's check applies them (each failure naming the property and the
 * rule, values unknown at preview left for later), the differences that make drift (secret values
 * hidden, deployed instances' cleaning undone, a type wiped by a defective update), and what the
 * provider sends and keeps in outputs.
 */
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import { describe, expect, it } from "vitest";

import {
  UNKNOWN,
  apiParams,
  changedInputs,
  checkInputs,
  desiredFrom,
  differences,
  outputsFrom,
  refreshedOutputs,
  type LiveHandler,
} from "../../provider/core/inputs";
import { HANDLER_TYPE_NAMES, fieldsOf } from "../../sdk/client/domain/catalog";
import { cleanLikeDeployed } from "../../sdk/client/domain/cleaning";

const live = (over: Partial<LiveHandler> = {}): LiveHandler => ({
  handlerId: 7,
  type: "email",
  name: "Ops",
  settings: { email: "ops@example.com" },
  isEnabled: true,
  pendingConfirmation: false,
  lastDatetime: null,
  datetime: "2026-01-01 00:00:00",
  ...over,
});

describe("checkInputs", () => {
  it("accepts a valid handler of every type", () => {
    const sample: Record<string, string> = {
      email: "a@example.com",
      webhook: "http://example.com/h",
      slack: "https://hooks.slack.com/x",
      discord: "https://discord.com/x",
      telegram: "123:abc_DEF-9",
      telegramChatId: "-100",
      microsoftTeams: "https://teams.example.com/x",
      googleChat: "https://chat.googleapis.com/x",
      xConsumerKey: "k",
      xConsumerSecret: "s",
      xAccessToken: "t",
      xAccessTokenSecret: "ts",
      twilio: "+15551234567",
      twilioCall: "+15551234567",
      whatsapp: "+15551234567",
    };
    for (const type of HANDLER_TYPE_NAMES) {
      const inputs: Record<string, unknown> = { type, name: `a ${type}` };
      for (const f of fieldsOf(type)) inputs[f.property] = sample[f.property];
      expect(checkInputs(inputs), type).toEqual([]);
    }
  });

  it("names the property and the rule of each failure", () => {
    expect(checkInputs({ type: "pager" })).toEqual([
      { property: "type", reason: expect.stringContaining("must be one of email, webhook") as string },
    ]);
    expect(checkInputs({ name: "x" })).toContainEqual({
      property: "type",
      reason: expect.stringContaining("is required") as string,
    });
    expect(checkInputs({ type: "telegram", name: "t", telegram: "nocolon", telegramChatId: "chat" })).toEqual(
      [
        { property: "telegram", reason: expect.stringMatching(/^must be a Telegram bot token/) as string },
        { property: "telegramChatId", reason: expect.stringContaining("integer chat id") as string },
      ],
    );
    expect(checkInputs({ type: "twilio", name: " ", twilio: "+1555" })).toEqual([
      { property: "name", reason: "is required and must not be empty" },
      { property: "twilio", reason: expect.stringContaining("E.164") as string },
    ]);
    expect(checkInputs({ type: "email", name: "e", email: "a@b.co", slack: "https://x.y" })).toEqual([
      { property: "slack", reason: "belongs to type slack, not email" },
    ]);
    expect(checkInputs({ type: "email", name: "e", email: "not-an-address" })).toEqual([
      { property: "email", reason: expect.stringContaining("must be an email address") as string },
    ]);
    expect(checkInputs({ type: "whatsapp", name: "w", whatsapp: "555-1234" })).toEqual([
      {
        property: "whatsapp",
        reason: expect.stringContaining("must be a phone number in E.164 form") as string,
      },
    ]);
    expect(checkInputs({ type: "telegram", name: "t", telegramChatId: "-100" })).toEqual([
      { property: "telegram", reason: expect.stringContaining("is required for type telegram") as string },
    ]);
    expect(checkInputs({ type: "email", name: "e", email: "a@b.co", colour: "red" })).toEqual([
      { property: "colour", reason: "is not a property of NotificationHandler" },
    ]);
    expect(
      checkInputs({ type: "email", name: "e", email: "a@b.co", adopt: -1, updateStrategy: "sideways" }),
    ).toEqual([
      { property: "adopt", reason: expect.stringContaining("positive integer id") as string },
      { property: "updateStrategy", reason: 'must be one of "in-place", "replace"' },
    ]);
    expect(checkInputs({ type: "email", name: "e", email: "a@b.co", isEnabled: "yes" })).toEqual([
      { property: "isEnabled", reason: "must be a boolean" },
    ]);
  });

  it("leaves values unknown at preview time for later", () => {
    expect(checkInputs({ type: "slack", name: UNKNOWN, slack: UNKNOWN })).toEqual([]);
  });

  it("knows an unknown value as the engine sends it to both providers", () => {
    expect(UNKNOWN).toBe(unknownValue);
  });
});

describe("differences", () => {
  const desired = desiredFrom({ type: "email", name: "Ops", email: "ops@example.com" });

  it("is empty when live matches, enabled by default", () => {
    expect(differences(desired, live())).toEqual([]);
    expect(desired.isEnabled).toBe(true);
  });

  it("counts an email handler waiting for confirmation as enabled", () => {
    expect(differences(desired, live({ isEnabled: true, pendingConfirmation: true }))).toEqual([]);
  });

  it("names each drifted property, hiding secret values", () => {
    const found = differences(
      desiredFrom({ type: "slack", name: "S", slack: "https://hooks.slack.com/secret" }),
      live({
        type: "slack",
        name: "S2",
        settings: { slack: "https://hooks.slack.com/other" },
        isEnabled: false,
      }),
    );
    expect(found).toEqual([
      { property: "name", live: '"S2"', desired: '"S"' },
      { property: "isEnabled", live: "false", desired: "true" },
      { property: "slack", live: "[secret]", desired: "[secret]" },
    ]);
  });

  it("undoes the cleaning of deployed instances, so a rewritten value is no change", () => {
    const name = `<b>Ops</b> "on-call" & 'friends' ${"x".repeat(200)}`;
    const d = desiredFrom({ type: "whatsapp", name, whatsapp: "+447700900123" });
    const stored = live({
      type: "whatsapp",
      name: cleanLikeDeployed("name", name),
      settings: { whatsapp: cleanLikeDeployed("whatsapp", "+447700900123") },
    });
    expect(stored.settings.whatsapp).toBe("447700900123");
    expect(differences(d, stored)).toEqual([]);
  });

  it("reports a type wiped by a defective update", () => {
    expect(differences(desired, live({ type: null, settings: { "": "" } }))).toEqual([
      { property: "type", live: "null", desired: '"email"' },
      { property: "email", live: "(missing)", desired: '"ops@example.com"' },
    ]);
  });
});

describe("inputs and outputs", () => {
  it("sends type, every field and is_enabled", () => {
    expect(
      apiParams(
        desiredFrom({ type: "telegram", name: "T", telegram: "1:a", telegramChatId: "@c", isEnabled: false }),
      ),
    ).toEqual({
      name: "T",
      type: "telegram",
      is_enabled: false,
      telegram: "1:a",
      telegram_chat_id: "@c",
    });
  });

  it("lists the API properties whose desired values changed, not the provider's own", () => {
    const a = { type: "email", name: "A", email: "a@example.com", adopt: true };
    expect(changedInputs(a, { ...a, adopt: false, updateStrategy: "replace" })).toEqual([]);
    expect(changedInputs(a, { ...a, name: "B", isEnabled: false })).toEqual(["name", "isEnabled"]);
    expect(changedInputs(a, { type: "slack", name: "A", slack: "https://x.y" })).toEqual(["type", "slack"]);
  });

  it("keeps the program's spelling in outputs, and live values where they really differ on refresh", () => {
    const inputs = { type: "email", name: ' "Ops" ', email: "ops@example.com", __provider: "code" };
    const outs = outputsFrom(inputs, live({ name: "&#34;Ops&#34;" }));
    expect(outs).toMatchObject({
      handlerId: 7,
      name: ' "Ops" ',
      pendingConfirmation: false,
      settings: { email: "ops@example.com" },
    });
    expect(outs).not.toHaveProperty("__provider");
    const refreshed = refreshedOutputs(
      inputs,
      live({ name: "&#34;Ops&#34;", settings: { email: "new@example.com" }, isEnabled: false }),
    );
    expect(refreshed).toMatchObject({ name: ' "Ops" ', email: "new@example.com", isEnabled: false });
  });
});
