/**
 * examples/yaml-handlers on the user's path: the README's "Run it" steps as written, with the real
 * Pulumi CLI. Handlers come from two YAML files; a teammate's added handler shows in the preview
 * and the PR summary; a file that breaks rules fails `validate` with its lines, and `pulumi up` of it
 * changes nothing; a key renamed with `was` updates in place; drift is shown and repaired.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import { storyStep } from "../support/story-step";
import { listAll, startExample } from "../support/engine/user-path";

const WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it
const BROKEN_WEBHOOK = "https://hooks.slack.com/services/T000/B000/SEARCH"; // written in a broken file

describe("examples/yaml-handlers, run as its README says with the Pulumi CLI", () => {
  // One story: each step acts on the stack the steps before it left.
  it("brings up two files, reviews a teammate's change, refuses a broken file, takes the fix, repairs drift, and destroys", async () => {
    const { session: s, steps } = await startExample("yaml-handlers", 6);
    await s.step(steps[0]!);
    const { key, client: api } = await s.account();
    const byName = async (): Promise<Map<string, NotificationHandlerRecord>> =>
      new Map((await listAll(api)).map((h) => [h.name, h]));

    await storyStep("up of the handlers of two files", async () => {
      const [up] = await s.step(steps[1]!);
      expect(up!.stdout).toContain("4 handlers in 2 files: no problems");
      const handlers = await byName();
      expect([...handlers.keys()].sort()).toEqual([
        "Payments pager",
        "Payments status inbox",
        "Platform Slack",
        "Platform on-call",
      ]);
      expect(handlers.get("Platform Slack")).toMatchObject({ type: "slack", settings: { slack: WEBHOOK } });
      expect(handlers.get("Payments pager")).toMatchObject({ settings: { twilio: "+15551230001" } });
    });

    await storyStep("a teammate's added handler in the preview and the PR summary, then made", async () => {
      const [review] = await s.step(steps[2]!);
      expect(review!.stdout).toContain(
        '| create | `payments-oncall` | new: "Payments on-call" | new email handler, enabled; deleted by a destroy |',
      );
      expect(review!.stdout).toContain("1 to create.");
      expect((await byName()).get("Payments on-call")).toMatchObject({
        type: "email",
        settings: { email: "payments-oncall@example.com" },
      });
    });

    await storyStep("a file breaking rules refused line by line; an up of it changes nothing", async () => {
      const before = await listAll(api);
      const validate = await s.sh(steps[3]!.code);
      expect(validate.code).toBe(1);
      const readme = await readFile(join(s.project, "README.md"), "utf8");
      const shown = /```\n(handlers\/search\.yaml:[\s\S]*?)```/.exec(readme)![1]!;
      // What the README shows is what the command prints: the problems, then their count on stderr.
      const lines = shown.trimEnd().split("\n");
      expect(validate.stdout).toBe(`${lines.slice(0, -1).join("\n")}\n`);
      expect(validate.stderr).toContain(`${lines.at(-1)!}\n`);

      const up = await s.sh("pulumi up --yes");
      expect(up.code).not.toBe(0);
      const printed = `${up.stdout}\n${up.stderr}`;
      expect(printed).toContain("the handler set has 2 problems; nothing was changed:");
      expect(printed).toContain(
        "handlers/search.yaml:4:11: search-pager.twilio: must be a phone number in E.164 form",
      );
      expect(await listAll(api)).toEqual(before);
    });

    await storyStep("the fix, and a key renamed with was: its handler updated in place", async () => {
      const inbox = (await byName()).get("Payments status inbox")!;
      await s.step(steps[4]!);
      const handlers = await byName();
      expect(handlers.get("Payments status")?.id).toBe(inbox.id);
      expect(handlers.get("Search pager")).toMatchObject({ settings: { twilio: "+15550100" } });
      expect(handlers.size).toBe(6);
    });

    await storyStep("drift made in the API on a handler of a file, shown and repaired", async () => {
      const oncall = (await byName()).get("Platform on-call")!;
      const [repair] = await s.step(steps[5]!);
      expect(repair!.stdout).toContain(`handler ${oncall.id} ("Platform on-call") differs from the program`);
      expect((await api.notificationHandlers.retrieve(oncall.id)).settings).toMatchObject({
        email: "platform-oncall@example.com",
      });
    });

    await storyStep("no secret in the state or in anything printed", async () => {
      const state = await s.mustSh("pulumi stack export", false);
      for (const secret of [key, WEBHOOK, BROKEN_WEBHOOK]) {
        expect(state.stdout.includes(secret), "a secret in the state").toBe(false);
        expect(s.transcript.join("\n").includes(secret), "a secret in the output").toBe(false);
      }
    });

    await storyStep("destroy", async () => {
      await s.mustSh("pulumi destroy --yes");
      expect(await listAll(api)).toEqual([]);
    });
  });
});
