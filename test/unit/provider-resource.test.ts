/**
 * The `NotificationHandler` class under Pulumi's mocks: what it registers with the engine, and the
 * outputs a program can read.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";

import { providerSource } from "../../provider/dynamic/provider-source";
import { NotificationHandler } from "../../provider/dynamic/resource";
import { DYNAMIC_RESOURCE_TYPE } from "../../provider/tokens";
import { ALL_FIELDS } from "../../sdk/client/domain/catalog";

const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const registered: { name: string; type: string; inputs: Record<string, unknown> }[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks({
    newResource: (args: pulumi.runtime.MockResourceArgs) => {
      const inputs = args.inputs as Record<string, unknown>;
      registered.push({ name: args.name, type: args.type, inputs });
      return { id: "7", state: { ...inputs, handlerId: 7 } };
    },
    call: (args: pulumi.runtime.MockCallArgs) => args.inputs as Record<string, unknown>,
  });
});

const valueOf = <T>(output: pulumi.Output<T>): Promise<T> =>
  new Promise((resolve) => output.apply((v) => resolve(v)));

describe("NotificationHandler", () => {
  it("registers the common outputs and its own type's fields, and reads them back", async () => {
    const slack = new NotificationHandler("team-slack", {
      type: "slack",
      name: "Team",
      slack: "https://hooks.slack.com/services/T0/B0/X",
    });
    expect(await valueOf(slack.handlerId)).toBe(7);
    expect(await valueOf(slack.slack)).toBe("https://hooks.slack.com/services/T0/B0/X");
    expect(await valueOf(slack.name)).toBe("Team");
    const own = Object.keys(slack).filter((k) => ALL_FIELDS.some((f) => f.property === k));
    expect(own).toEqual(["slack"]);
    // The token that previews, and so `notification-handlers summary`, know the resource by.
    expect(registered.find((r) => r.name === "team-slack")?.type).toBe(DYNAMIC_RESOURCE_TYPE);
    // Sent to the engine as a secret (Pulumi's secret signature around the value).
    expect(registered.find((r) => r.name === "team-slack")?.inputs.slack).toEqual({
      [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270",
      value: "https://hooks.slack.com/services/T0/B0/X",
    });
  });

  it("records the provider source of the current contract, with this package's version", async () => {
    const inbox = new NotificationHandler("records-source", { type: "internal_notification" });
    await valueOf(inbox.handlerId);
    const { version } = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    // The checkout is no install: the project's folder (the tests') needs no other folder.
    expect(registered.find((r) => r.name === "records-source")?.inputs.__provider).toBe(
      providerSource({ version }),
    );
  });

  it("gives the other types' fields as outputs of undefined, made only when read", async () => {
    const email = new NotificationHandler("ops-email", { type: "email", email: "ops@example.com" });
    expect(Object.keys(email)).not.toContain("webhook");
    expect(pulumi.Output.isInstance(email.webhook)).toBe(true);
    expect(await valueOf(email.webhook)).toBeUndefined();
    expect(email.webhook).toBe(email.webhook);
    expect(await valueOf(email.email)).toBe("ops@example.com");
  });

  it("registers every field when the type is known only later", async () => {
    const later = new NotificationHandler("later", {
      type: pulumi.output("webhook") as unknown as "webhook",
      webhook: "https://example.com/hook",
    });
    const fields = Object.keys(later).filter((k) => ALL_FIELDS.some((f) => f.property === k));
    expect(fields.sort()).toEqual(ALL_FIELDS.map((f) => f.property).sort());
    expect(await valueOf(later.webhook)).toBe("https://example.com/hook");
  });

  it("keeps secret fields secret in the outputs", async () => {
    const hook = new NotificationHandler("secret-hook", {
      type: "webhook",
      webhook: "https://example.com/secret",
    });
    expect(await pulumi.isSecret(hook.webhook)).toBe(true);
  });
});
