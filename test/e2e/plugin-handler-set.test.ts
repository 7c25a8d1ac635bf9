/**
 * `HandlerSet` from every language: a Pulumi YAML program (`fixtures/handler-set-plugin`) declares the
 * component, and the plugin (its executable extracted from the tarball into the folder
 * `plugins.providers` names) builds it through Construct, under the Pulumi CLI run from outside the
 * project (`--cwd`), so the patterns are proved relative to the program's folder. The handlers of two
 * files are made on the set's explicit provider, a changed file updates its one handler, and a file with a problem fails the preview
 * and the up with its `FILE:LINE:COLUMN` line, writing nothing. The rules themselves are proved at
 * the format's level: `unit/provider-handler-set-format`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import {
  type PluginProject,
  pluginProjectForTest,
  serverForTest,
  type TestServer,
} from "../support/engine/stacks";
import { storyStep } from "../support/story-step";

const FIXTURE = join(__dirname, "..", "fixtures", "handler-set-plugin");
const WEBHOOK = "https://hooks.slack.com/services/T000/B000/PLUGIN";

/** The user's handlers as `type name` lines, with their ids by name. */
async function handlers(
  server: TestServer,
  key: string,
): Promise<{ summary: string[]; ids: Map<string, number> }> {
  const all = await server.handlers(key);
  return {
    summary: all.map((h) => `${h.type} ${h.name}`).sort(),
    ids: new Map(all.map((h) => [h.name, h.id])),
  };
}

/** The resources of the stack's state, as `type::name` and the name of their provider resource. */
async function stateResources({ pulumi }: PluginProject): Promise<string[]> {
  const exported = await pulumi("stack", "export");
  const { deployment } = JSON.parse(exported.stdout) as {
    deployment: { resources?: { urn: string; provider?: string }[] };
  };
  return (deployment.resources ?? []).map((r) =>
    [r.urn.split("::").slice(2).join("::"), r.provider?.split("::").at(-2)].filter(Boolean).join(" "),
  );
}

describe("a HandlerSet of a Pulumi YAML program, built by the plugin", () => {
  // One story: each step acts on the stack and the files the steps before it left.
  it("makes a handler per entry, updates the one whose entry changed, and refuses a file with a problem", async () => {
    const server = await serverForTest();
    const key = await server.newKey();
    const project = await pluginProjectForTest(
      { copy: FIXTURE },
      { url: server.url, key: { secret: key }, platformSlackWebhook: { secret: WEBHOOK } },
    );
    const { pulumi } = project;

    await storyStep("up: a handler per entry, children of the set, their ids as outputs", async () => {
      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up.code, up.stderr).toBe(0);
      const { summary, ids } = await handlers(server, key);
      expect(summary).toEqual([
        "email Platform on-call",
        "internal_notification Payments inbox",
        "slack Platform Slack",
      ]);
      const slack = (await server.handlers(key)).find((h) => h.type === "slack");
      expect(slack?.settings).toEqual({ slack: WEBHOOK });

      const output = await pulumi("stack", "output", "handlerIds", "--json");
      expect(JSON.parse(output.stdout)).toEqual({
        "platform-oncall": ids.get("Platform on-call"),
        "platform-slack": ids.get("Platform Slack"),
        "payments-inbox": ids.get("Payments inbox"),
      });
      const set = "notification-handlers:index:HandlerSet";
      const child = `${set}$notification-handlers:index:NotificationHandler`;
      expect((await stateResources(project)).filter((r) => r.includes("HandlerSet")).sort()).toEqual([
        `${child}::payments-inbox account`,
        `${child}::platform-oncall account`,
        `${child}::platform-slack account`,
        `${set}::alerts`,
      ]);
      const state = (await pulumi("stack", "export")).stdout;
      for (const secret of [key, WEBHOOK]) {
        expect(state.includes(secret), "a secret in the state").toBe(false);
        expect(`${up.stdout}${up.stderr}`.includes(secret), "a secret in the output").toBe(false);
      }
    });

    await storyStep("a changed entry: previewed, then its one handler updated in place", async () => {
      const before = await handlers(server, key);
      const file = join(project.folder, "handlers", "payments.yaml");
      await writeFile(file, (await readFile(file, "utf8")).replace("Payments inbox", "Payments status"));
      const preview = await pulumi("preview");
      expect(preview.code, preview.stderr).toBe(0);
      expect(preview.stdout).toMatch(/1 to update/);
      expect((await handlers(server, key)).summary).toEqual(before.summary);
      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up.code, up.stderr).toBe(0);
      expect(up.stdout).toMatch(/1 updated/);
      const after = await handlers(server, key);
      expect(after.ids.get("Payments status")).toBe(before.ids.get("Payments inbox"));
      expect(after.ids.get("Platform on-call")).toBe(before.ids.get("Platform on-call"));
      expect(after.summary).toHaveLength(3);
    });

    await storyStep("a file with a problem: preview and up fail naming its line, no write", async () => {
      const before = await server.handlers(key);
      const state = await stateResources(project);
      await writeFile(
        join(project.folder, "handlers", "search.yaml"),
        "search-oncall:\n  type: email\n  email: not-an-address\n",
      );
      const expected = "handlers/search.yaml:3:10: search-oncall.email: must be an email address";
      const preview = await pulumi("preview");
      expect(preview.code).not.toBe(0);
      expect(`${preview.stdout}${preview.stderr}`).toContain(
        "the handler set has 1 problem; nothing was changed:",
      );
      expect(`${preview.stdout}${preview.stderr}`).toContain(expected);

      const up = await pulumi("up", "--yes", "--skip-preview");
      expect(up.code).not.toBe(0);
      expect(`${up.stdout}${up.stderr}`).toContain(expected);
      expect(await server.handlers(key)).toEqual(before);
      expect(await stateResources(project)).toEqual(state);
    });
  });
});
