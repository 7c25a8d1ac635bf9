/**
 * examples/quickstart on the user's path: the release's packages installed from a stand-in of the npm
 * registry into a copy of the example outside the repository, the README's "Run it" steps run as written with the real Pulumi CLI, then
 * the rest of the drift story (a changed secret in the preview, the state, destroy) as commands, and
 * checks that every secret field refused shows no value.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { NotFoundError } from "../../sdk/client/core/errors";
import { REPOSITORY_ROOT } from "../../scripts/support/user-project";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import { expectRefusalsKeepSecrets } from "../support/engine/refusals";
import { storyStep } from "../support/story-step";
import { expectReleaseInstalled, installedVersion, listAll, startExample } from "../support/engine/user-path";

const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX"; // as the README sets it
const CHANGED_WEBHOOK = "https://hooks.slack.com/services/T000/B000/CHANGED-IN-THE-UI";

describe("examples/quickstart, run as its README says with the Pulumi CLI", () => {
  // One story: each step acts on the stack the steps before it left.
  it("brings the stack up, repairs drift made in the API, keeps secrets out, and destroys it", async () => {
    const { session: s, steps } = await startExample("quickstart", 4);

    const { key, client: api } = await storyStep(
      "install the release's packages from the registry and start the server",
      async () => {
        await s.step(steps[0]!);
        const account = await s.account();
        expect(account.key.length).toBeGreaterThanOrEqual(16);
        expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        // What npm installed is the release's packages, and the @pulumi/pulumi the example's lockfile pins.
        await expectReleaseInstalled(s.project);
        const lock = JSON.parse(
          await readFile(join(REPOSITORY_ROOT, "examples", "quickstart", "package-lock.json"), "utf8"),
        ) as { packages: Record<string, { version: string }> };
        expect(await installedVersion(s, "@pulumi/pulumi")).toBe(
          lock.packages["node_modules/@pulumi/pulumi"]?.version,
        );
        return account;
      },
    );

    const ids = await storyStep("up", async () => {
      const [up] = await s.step(steps[1]!);
      expect(up!.stdout).toMatch(/5 created/);
      const outputs = await s.mustSh("pulumi stack output --json");
      const ids = JSON.parse(outputs.stdout) as Record<
        "oncallId" | "slackId" | "pagerId" | "inboxId",
        number
      >;
      const handlers = await listAll(api);
      const byId = (id: number): NotificationHandlerRecord | undefined => handlers.find((h) => h.id === id);
      expect(handlers).toHaveLength(4);
      expect(byId(ids.oncallId)).toMatchObject({
        type: "email",
        name: "On-call email",
        settings: { email: "oncall@example.com" },
      });
      expect(byId(ids.slackId)).toMatchObject({
        type: "slack",
        name: "Team Slack",
        settings: { slack: SLACK_WEBHOOK },
      });
      expect(byId(ids.pagerId)).toMatchObject({ type: "twilio", name: "Pager SMS", is_enabled: true });
      expect(byId(ids.inboxId)).toMatchObject({ type: "internal_notification", name: "Status inbox" });
      return ids;
    });

    await storyStep("a rename and a delete in the API, shown by preview, repaired by up", async () => {
      await s.step(steps[2]!);
      expect((await api.notificationHandlers.retrieve(ids.oncallId)).name).toBe("Renamed in the web UI");
      await expect(api.notificationHandlers.retrieve(ids.pagerId)).rejects.toBeInstanceOf(NotFoundError);

      const [repair] = await s.step(steps[3]!);
      const printed = repair!.stdout;
      // The preview: the edit and the delete, without --refresh.
      expect(printed).toContain(
        `handler ${ids.oncallId} ("Renamed in the web UI", in the code "On-call email") differs from the program`,
      );
      expect(printed).toContain(`handler ${ids.pagerId} ("Pager SMS") no longer exists in the API`);

      const handlers = await listAll(api);
      expect(handlers).toHaveLength(4);
      expect(handlers.find((h) => h.id === ids.oncallId)?.name).toBe("On-call email");
      const pager = handlers.find((h) => h.type === "twilio");
      expect(pager?.name).toBe("Pager SMS");
      expect(pager?.id).not.toBe(ids.pagerId);
    });

    // Its repair by up is the gitops deploy's (cli-gitops); refresh after drift, connections'.
    await storyStep("a secret changed in the API, shown without its value", async () => {
      await api.notificationHandlers.update(ids.slackId, { slack: CHANGED_WEBHOOK });

      const preview = await s.mustSh("pulumi preview --diff");
      const printed = `${preview.stdout}\n${preview.stderr}`;
      expect(printed).toContain(`handler ${ids.slackId} ("Team Slack") differs from the program`);
      expect(printed).toMatch(/team-slack\][^~]*slack\s*: \[secret\]/);
      expect(printed).toContain("slack: live [secret], desired [secret]");
    });

    await expectRefusalsKeepSecrets(s, "dynamic");

    await storyStep("no API key or webhook URL in the state or in anything printed", async () => {
      const state = await s.mustSh("pulumi stack export", false);
      expect(state.stdout).toContain("notification-handlers:NotificationHandler");
      for (const secret of [key, SLACK_WEBHOOK, CHANGED_WEBHOOK]) {
        expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
        expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
      }
    });

    await storyStep("destroy", async () => {
      await s.mustSh("pulumi destroy --yes");
      expect(await listAll(api)).toEqual([]);
    });
  });
});
