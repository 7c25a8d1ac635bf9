/**
 * Upgrades on the user's path: each stack a release wrote (test/fixtures/upgrade/<version><suffix>,
 * made by `npm run record:upgrade-state` on that release: a TypeScript program's, and a YAML
 * program's through the plugin) is imported with the reference server's database of that moment; this
 * checkout's packed package, or its plugin, then previews it with no change, repairs a handler changed
 * behind Pulumi's back, and destroys it, with the Pulumi CLI in the program's folder. The YAML program
 * still names the recorded version and the GitHub release, as README.md has it: the engine downloads
 * this checkout's plugin, served as that version's release by a loopback stand-in.
 */
import { readFileSync } from "node:fs";
import { copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, inject, it, onTestFinished } from "vitest";

import { providerSource } from "../../provider/dynamic/provider-source";
import { HANDLER_RESOURCE_TYPES } from "../../provider/tokens";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import { packageVersion, pluginTarballName } from "../../scripts/release/build-plugin";
import { type PluginRelease, startPluginRelease } from "../../scripts/release/stand-in";
import { nameRecordedVersion, recordings, UPGRADE_FIXTURE } from "../../scripts/release/upgrade-fixture";
import { REPOSITORY_ROOT, scratchFolder } from "../../scripts/support/user-project";
import { storyStep } from "../support/story-step";
import { listAll, UserSession } from "../support/engine/user-path";

const RELEASES = join(REPOSITORY_ROOT, UPGRADE_FIXTURE.releases);

/** A resource of an exported state, as far as the test reads it. */
interface StateResource {
  type: string;
  urn: string;
  outputs?: Record<string, unknown>;
}

const resourcesOf = (exported: string): StateResource[] =>
  (JSON.parse(exported) as { deployment: { resources?: StateResource[] } }).deployment.resources ?? [];

const CHANGED_WEBHOOK = "https://example.com/hooks/CHANGED-BEHIND-PULUMIS-BACK";

/** The handlers as the program declares them: without the time of their latest update. */
const declared = (handlers: NotificationHandlerRecord[]): object[] =>
  handlers.map(({ last_datetime: _, ...handler }) => handler);

/**
 * The e2e set-up's release, its plugin's tarball renamed for `version`, in `work`: what the engine
 * downloads for a program that names `version`, served by {@link startPluginRelease}.
 */
async function releaseAs(version: string, work: string): Promise<string> {
  const folder = join(work, "release", `v${version}`);
  await mkdir(folder, { recursive: true });
  await copyFile(
    join(inject("release"), pluginTarballName(packageVersion())),
    join(folder, pluginTarballName(version)),
  );
  return folder;
}

describe.each(recordings(REPOSITORY_ROOT))(
  "a stack written by $name, run by this checkout",
  ({ name, version, program }) => {
    // One story: each step acts on the stack the steps before it left.
    it("previews the restored stack with no change, repairs a handler changed in the API, and destroys every handler", async () => {
      const fixture = join(RELEASES, name);
      const recorded = resourcesOf(readFileSync(join(fixture, "state.json"), "utf8"));
      const handlers = recorded.filter((r) => HANDLER_RESOURCE_TYPES.includes(r.type)).length;
      // The stack, the sets and the handlers; providers are not counted.
      const resources = recorded.filter((r) => !r.type.startsWith("pulumi:providers:")).length;
      let release: PluginRelease | undefined;
      if (program.downloadsPlugin === true) {
        const work = await scratchFolder("stand-ins-upgrade");
        onTestFinished(() => rm(work, { recursive: true, force: true }));
        // The installed tree is the seeded one: nothing but the plugin is downloaded.
        const served = await startPluginRelease(await releaseAs(version, work), work, []);
        onTestFinished(() => served.close());
        release = served;
      }
      const s = await UserSession.start("upgrade", {
        pathFirst: inject("enginePath"),
        source: program.source,
        ...(program.pins === undefined ? {} : { pins: program.pins }),
        ...(release === undefined ? {} : { env: release.env }),
      });
      onTestFinished(() => s.dispose());

      const { key, client: api } = await storyStep(
        "the server's data restored, the program as recorded",
        async () => {
          await s.mustSh("mkdir -p .data");
          await copyFile(join(fixture, "server.db"), join(s.project, ".data", "server.db"));
          if (program.downloadsPlugin === true) await nameRecordedVersion(s.project, version);
          // The installed tree is the seeded one: no `npm install`.
          await s.mustSh(
            `export KEY=$(node_modules/.bin/notification-handlers-server keys create --db .data/server.db --user ${UPGRADE_FIXTURE.user})`,
          );
          await s.step({
            intro: "",
            code: "node_modules/.bin/notification-handlers-server serve --port 8080 --db .data/server.db &\n",
          });
          return s.account();
        },
      );

      await storyStep("the stack restored, previewed with no change", async () => {
        expect(await listAll(api)).toHaveLength(handlers);
        const configFile = `Pulumi.${UPGRADE_FIXTURE.stack}.yaml`;
        await s.mustSh(`export PULUMI_CONFIG_PASSPHRASE=${UPGRADE_FIXTURE.passphrase}
pulumi stack init ${UPGRADE_FIXTURE.stack}`);
        await copyFile(join(fixture, configFile), join(s.project, configFile));
        await s.mustSh(`pulumi stack import --file ${JSON.stringify(join(fixture, "state.json"))}
pulumi config set notification-handlers:baseUrl http://127.0.0.1:8080
pulumi config set --secret notification-handlers:apiKey "$KEY"`);

        const preview = await s.mustSh("pulumi preview --expect-no-changes --diff");
        expect(preview.stdout).toMatch(new RegExp(`${resources} unchanged`));
        // The plugin the recorded version names, downloaded from the stand-in: nothing else left the machine.
        release?.expectServed();
      });

      await storyStep("a webhook changed in the API, put back by an up, no secret in the state", async () => {
        const before = await listAll(api);
        const webhook = before.find((h) => h.type === "webhook");
        expect(webhook?.settings.webhook).toMatch(/^https:/);
        await api.notificationHandlers.update(webhook!.id, { webhook: CHANGED_WEBHOOK });

        const up = await s.mustSh("pulumi up --yes --skip-preview");
        expect(up.stdout).toMatch(/1 updated/);
        expect(declared(await listAll(api))).toEqual(declared(before));

        const state = await s.mustSh("pulumi stack export", false);
        if (program.downloadsPlugin !== true) {
          // The update wrote the source this checkout records, byte for byte as its source code makes it.
          const repaired = resourcesOf(state.stdout).find((r) => r.urn.endsWith("::webhook"));
          expect(repaired?.outputs?.__provider).toBe(providerSource({ version: packageVersion() }));
        }
        const secrets = [key, CHANGED_WEBHOOK, webhook!.settings.webhook!, ...Object.values(program.secrets)];
        for (const secret of secrets) {
          expect(state.stdout.includes(secret), "a secret in the exported state").toBe(false);
          expect(s.transcript.join("\n").includes(secret), "a secret in the CLI's output").toBe(false);
        }
      });

      await storyStep("destroy of every handler, the adopted one included", async () => {
        const destroy = await s.mustSh("pulumi destroy --yes --skip-preview");
        expect(destroy.stdout).toMatch(new RegExp(`${resources} deleted`));
        expect(await listAll(api)).toEqual([]);
      });
    });
  },
);
