/**
 * Upgrades on the user's path: a stack that a release wrote (test/fixtures/upgrade/<version>, made by
 * `npm run record:upgrade-state` on that release) is imported with the reference server's database of
 * that moment, and this checkout's packed package then previews it with no change, updates it and
 * destroys it, with the Pulumi CLI in the fixture program's folder.
 */
import { readdirSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";

import { afterAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { REPOSITORY_ROOT } from "../../scripts/user-project";
import { UPGRADE_FIXTURE } from "../../scripts/record-upgrade-state";
import { storyStep } from "./story-step";
import { listAll, UserSession } from "./user-path";

const RELEASES = join(REPOSITORY_ROOT, UPGRADE_FIXTURE.releases);
const releases = readdirSync(RELEASES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && /^\d+\.\d+\.\d+/.test(entry.name))
  .map((entry) => entry.name);

const CHANGED_WEBHOOK = "https://hooks.slack.com/services/T000/B000/CHANGED-ON-UPGRADE";
const HANDLERS = 14; // the program's twelve, and the handler set's two

describe.each(releases)("a stack written by %s, run by this checkout", (release) => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;

  afterAll(async () => {
    await client?.close();
    await session?.dispose();
  });

  // One story: each step acts on the stack the steps before it left.
  it("previews the restored stack with no change, updates a handler it holds, and destroys every handler", async () => {
    session = await UserSession.start("upgrade", {
      pathFirst: inject("enginePath"),
      source: UPGRADE_FIXTURE.program,
    });
    const s = session;
    const fixture = join(RELEASES, release);

    const key = await storyStep("the server's data restored", async () => {
      await s.mustSh("mkdir -p .data");
      await copyFile(join(fixture, "server.db"), join(s.project, ".data", "server.db"));
      await s.mustSh(
        `npm install --no-audit --no-fund
export KEY=$(node_modules/.bin/notification-handlers-server keys create --db .data/server.db --user ${UPGRADE_FIXTURE.user})`,
      );
      await s.step({
        intro: "",
        code: "node_modules/.bin/notification-handlers-server serve --port 8080 --db .data/server.db &\n",
      });
      return s.variable("KEY");
    });
    client = new NotificationHandlersClient({ baseURL: s.url!, apiKey: key, maxRetries: 0 });
    const api = client;

    await storyStep("the stack restored, previewed with no change", async () => {
      expect(await listAll(api)).toHaveLength(HANDLERS);
      const configFile = `Pulumi.${UPGRADE_FIXTURE.stack}.yaml`;
      await s.mustSh(`export PULUMI_CONFIG_PASSPHRASE=${UPGRADE_FIXTURE.passphrase}
pulumi stack init ${UPGRADE_FIXTURE.stack}`);
      await copyFile(join(fixture, configFile), join(s.project, configFile));
      await s.mustSh(`pulumi stack import --file ${JSON.stringify(join(fixture, "state.json"))}
pulumi config set notification-handlers:baseUrl http://127.0.0.1:8080
pulumi config set --secret notification-handlers:apiKey "$KEY"`);

      const preview = await s.mustSh("pulumi preview --expect-no-changes --diff");
      expect(preview.stdout).toMatch(new RegExp(`${HANDLERS + 2} unchanged`)); // and the stack and the set
    });

    await storyStep("an update of a handler the old state holds, no secret in the state", async () => {
      const before = await listAll(api);
      const slack = before.find((h) => h.type === "slack" && h.name === "slack");
      expect(slack?.settings).toEqual({ slack: UPGRADE_FIXTURE.secrets.slackWebhook });

      await s.mustSh(`printf '%s' ${CHANGED_WEBHOOK} | pulumi config set --secret slackWebhook`, false);
      const up = await s.mustSh("pulumi up --yes");
      expect(up.stdout).toMatch(/1 updated/);
      const after = await listAll(api);
      expect(after.map((h) => h.id)).toEqual(before.map((h) => h.id));
      expect(after.find((h) => h.id === slack!.id)?.settings).toEqual({ slack: CHANGED_WEBHOOK });
      await s.mustSh("pulumi preview --expect-no-changes");

      const state = await s.mustSh("pulumi stack export", false);
      for (const secret of [key, CHANGED_WEBHOOK, ...Object.values(UPGRADE_FIXTURE.secrets)]) {
        expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
        expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
      }
    });

    await storyStep("destroy of every handler, the adopted one included", async () => {
      const destroy = await s.mustSh("pulumi destroy --yes");
      expect(destroy.stdout).toMatch(new RegExp(`${HANDLERS + 2} deleted`));
      expect(await listAll(api)).toEqual([]);
    });
  });
});
