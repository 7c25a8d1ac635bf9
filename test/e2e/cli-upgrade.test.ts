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
  let key = "";

  afterAll(async () => {
    await client?.close();
    await session?.dispose();
  });

  it("previews with no change after the stack and the server's data are restored", async () => {
    session = await UserSession.start("upgrade", {
      pathFirst: inject("enginePath"),
      source: UPGRADE_FIXTURE.program,
    });
    const fixture = join(RELEASES, release);
    const configFile = `Pulumi.${UPGRADE_FIXTURE.stack}.yaml`;
    await session.mustSh("mkdir -p .data");
    await copyFile(join(fixture, "server.db"), join(session.project, ".data", "server.db"));
    await session.mustSh(
      `npm install --no-audit --no-fund
export KEY=$(node_modules/.bin/notification-handlers-server keys create --db .data/server.db --user ${UPGRADE_FIXTURE.user})`,
    );
    await session.step({
      intro: "",
      code: "node_modules/.bin/notification-handlers-server serve --port 8080 --db .data/server.db &\n",
    });
    key = await session.variable("KEY");
    client = new NotificationHandlersClient({ baseURL: session.url!, apiKey: key, maxRetries: 0 });
    expect(await listAll(client)).toHaveLength(HANDLERS);

    await session.mustSh(`export PULUMI_CONFIG_PASSPHRASE=${UPGRADE_FIXTURE.passphrase}
pulumi stack init ${UPGRADE_FIXTURE.stack}`);
    await copyFile(join(fixture, configFile), join(session.project, configFile));
    await session.mustSh(`pulumi stack import --file ${JSON.stringify(join(fixture, "state.json"))}
pulumi config set notification-handlers:baseUrl http://127.0.0.1:8080
pulumi config set --secret notification-handlers:apiKey "$KEY"`);

    const preview = await session.mustSh("pulumi preview --expect-no-changes --diff");
    expect(preview.stdout).toMatch(new RegExp(`${HANDLERS + 2} unchanged`)); // and the stack and the set
  });

  it("updates a handler the old state holds, and keeps its secrets out of the state", async () => {
    expect(client, "the stack is restored").toBeDefined();
    const s = session!;
    const before = await listAll(client!);
    const slack = before.find((h) => h.type === "slack" && h.name === "slack");
    expect(slack?.settings).toEqual({ slack: UPGRADE_FIXTURE.secrets.slackWebhook });

    await s.mustSh(`printf '%s' ${CHANGED_WEBHOOK} | pulumi config set --secret slackWebhook`, false);
    const up = await s.mustSh("pulumi up --yes");
    expect(up.stdout).toMatch(/1 updated/);
    const after = await listAll(client!);
    expect(after.map((h) => h.id)).toEqual(before.map((h) => h.id));
    expect(after.find((h) => h.id === slack!.id)?.settings).toEqual({ slack: CHANGED_WEBHOOK });
    await s.mustSh("pulumi preview --expect-no-changes");

    const state = await s.mustSh("pulumi stack export", false);
    for (const secret of [key, CHANGED_WEBHOOK, ...Object.values(UPGRADE_FIXTURE.secrets)]) {
      expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
      expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
    }
  });

  it("destroys every handler, the adopted one included", async () => {
    expect(client, "the stack is restored").toBeDefined();
    const destroy = await session!.mustSh("pulumi destroy --yes");
    expect(destroy.stdout).toMatch(new RegExp(`${HANDLERS + 2} deleted`));
    expect(await listAll(client!)).toEqual([]);
  });
});
