/**
 * templates/<language> on the user's path: `pulumi new` with the template's folder in an empty folder
 * outside the repository, its configuration given on the command line or, for YAML, typed at its prompts
 * in a terminal (the secrets stored encrypted, and never shown),
 * the language host installing what the template pins from loopback stand-ins of the registries (the
 * provider's npm package, the Python SDK's index, the Go SDK's tag; the plugin from the release, which
 * the engine downloads for the other languages), then up, a rename in the API shown by preview and
 * repaired by up, destroy, and no secret in the state or in anything printed.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";

import { describe, expect, inject, it, onTestFinished } from "vitest";
import { parse as parseYaml } from "yaml";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { REPOSITORY_ROOT, scratchFolder } from "../../scripts/support/user-project";
import { expectSecretsKept } from "../support/engine/program-on-two-sites";
import { copyPinnedVirtualenv, listAll, UserSession } from "../support/engine/user-path";
import { serverForTest } from "../support/servers/reference-server";
import { startReleaseOnNpm } from "../support/stand-ins/npm-registry";
import { pluginRelease, type Registries } from "../support/stand-ins/registries";
import { goSdkRegistries, pythonSdkRegistries } from "../support/stand-ins/sdk-registries";
import { storyStep } from "../support/story-step";

const SLACK_WEBHOOK = "https://hooks.slack.com/services/T000/B000/TEMPLATE";

interface Language {
  language: string;
  /** The stand-ins the language's install and the engine's plugin download take from. */
  registries: (work: string) => Promise<Registries>;
  /** What an earlier install of the same pins left, put into the folder before `pulumi new`. */
  seed?: (project: string, env: NodeJS.ProcessEnv) => Promise<void>;
  /** `pulumi new` answered at its prompts in a terminal, as the README has it, not given `--yes`. */
  prompted?: boolean;
}

const LANGUAGES: Language[] = [
  {
    language: "typescript",
    // npm's packages the machine's cache lacks come from registry.npmjs.org through the stand-in.
    registries: () => startReleaseOnNpm(inject("packages")),
  },
  {
    language: "python",
    registries: pythonSdkRegistries,
    // The virtual environment of examples/python's pins, which the template's are: installing
    // `pulumi` again costs about 25 s of CPU. The host's pip install then adds the SDK alone.
    seed: async (project, env) =>
      copyPinnedVirtualenv(
        await readFile(join(REPOSITORY_ROOT, "templates", "python", "constraints.txt"), "utf8"),
        join(project, "venv"),
        env,
      ),
  },
  {
    language: "go",
    registries: goSdkRegistries,
  },
  { language: "yaml", registries: (work) => pluginRelease(work), prompted: true },
];

type Outputs = Record<"oncallId" | "slackId" | "pagerId", number>;

/** Runs a command in a terminal and answers its prompts (see the script's own comment). */
const ANSWER_PROMPTS = join(REPOSITORY_ROOT, "test", "support", "engine", "answer-prompts.py");

describe.each(LANGUAGES)(
  "templates/$language, made with pulumi new",
  ({ language, registries, seed, prompted }) => {
    // One story: each step acts on the stack the steps before it left.
    it("makes a project with its secrets encrypted, brings it up, repairs a rename, keeps secrets out, destroys", async () => {
      const server = await serverForTest();
      const key = await server.newKey();
      const api = new NotificationHandlersClient({ baseURL: server.url, apiKey: key, maxRetries: 0 });
      onTestFinished(() => api.close());
      const work = await scratchFolder(`stand-ins-template-${language}`);
      onTestFinished(() => rm(work, { recursive: true, force: true }));
      const standIns = await registries(work);
      onTestFinished(() => standIns.close());
      const project = `alerts-${language}`;
      const s = await UserSession.empty(
        project,
        { pathFirst: inject("enginePath"), env: standIns.env },
        seed,
      );
      onTestFinished(() => s.dispose());

      await storyStep("pulumi new: the template's program, its config, its dependencies", async () => {
        const template = join(REPOSITORY_ROOT, "templates", language);
        // --force: a seeded folder holds what an earlier install made, no file of the template's.
        const force = seed === undefined ? "" : " --force";
        await s.mustSh(
          `export PULUMI_CONFIG_PASSPHRASE=local-only KEY='${key}' SLACK_WEBHOOK='${SLACK_WEBHOOK}'`,
          false,
        );
        const made = async (): Promise<{ text: string; config: Record<string, unknown> }> => {
          const text = await readFile(join(s.project, "Pulumi.dev.yaml"), "utf8");
          return { text, config: (parseYaml(text) as { config: Record<string, unknown> }).config };
        };
        if (prompted === true) {
          const answers = {
            "Project name": project,
            "Project description": "",
            "Stack name": "dev",
            "(notification-handlers:baseUrl)": server.url,
            "(notification-handlers:apiKey)": "$KEY",
            "(slackWebhook)": "$SLACK_WEBHOOK",
            "(oncallEmail)": "alerts@example.com",
          };
          await s.mustSh(
            `python3 ${ANSWER_PROMPTS} '${JSON.stringify(answers)}' pulumi new ${template}${force}`,
          );
        } else {
          await s.mustSh(
            `pulumi new ${template} --yes --stack dev${force} \\\n` +
              `  -c notification-handlers:baseUrl=${server.url} -c oncallEmail=alerts@example.com`,
          );
          // The CLI stores a --config value as given, a template's secret too: with --yes the secrets
          // are left to `pulumi config set --secret`, which the README's lines give.
          expect((await made()).config).toEqual({
            "notification-handlers:baseUrl": server.url,
            [`${project}:oncallEmail`]: "alerts@example.com",
          });
          await s.mustSh(
            'printf %s "$KEY" | pulumi config set --secret notification-handlers:apiKey\n' +
              'printf %s "$SLACK_WEBHOOK" | pulumi config set --secret slackWebhook',
          );
        }
        const { text, config } = await made();
        expect(config).toMatchObject({
          "notification-handlers:baseUrl": server.url,
          [`${project}:oncallEmail`]: "alerts@example.com",
        });
        for (const name of ["notification-handlers:apiKey", `${project}:slackWebhook`])
          expect(Object.keys(Object(config[name]) as object), name).toEqual(["secure"]);
        for (const secret of [key, SLACK_WEBHOOK])
          expect(text.includes(secret), "a secret in the stack's config file").toBe(false);
        const settings = parseYaml(await readFile(join(s.project, "Pulumi.yaml"), "utf8")) as object;
        expect(settings).toMatchObject({ name: project });
        expect(settings).not.toHaveProperty("template");
      });

      const ids = await storyStep("up: an email, a Slack and a disabled SMS handler", async () => {
        const up = await s.mustSh("pulumi up --yes");
        expect(up.stdout).toMatch(/4 created/); // the stack and three handlers
        standIns.expectServed();
        const ids = JSON.parse((await s.mustSh("pulumi stack output --json")).stdout) as Outputs;
        const handlers = await listAll(api);
        expect(handlers).toHaveLength(3);
        expect(handlers.find((h) => h.id === ids.oncallId)).toMatchObject({
          type: "email",
          name: "On-call email",
          is_enabled: true,
          settings: { email: "alerts@example.com" },
        });
        expect(handlers.find((h) => h.id === ids.slackId)).toMatchObject({
          type: "slack",
          name: "Team Slack",
          settings: { slack: SLACK_WEBHOOK },
        });
        expect(handlers.find((h) => h.id === ids.pagerId)).toMatchObject({
          type: "twilio",
          name: "Pager SMS",
          is_enabled: false,
          settings: { twilio: "+15551234567" },
        });
        return ids;
      });

      await storyStep("a rename in the API, shown by preview, repaired by up", async () => {
        await api.notificationHandlers.update(ids.oncallId, { name: "Renamed in the web UI" });
        const preview = await s.mustSh("pulumi preview --diff");
        expect(`${preview.stdout}\n${preview.stderr}`).toContain(
          `handler ${ids.oncallId} ("Renamed in the web UI", in the code "On-call email") differs from the program`,
        );
        await s.mustSh("pulumi up --yes");
        expect((await api.notificationHandlers.retrieve(ids.oncallId)).name).toBe("On-call email");
        await s.mustSh("pulumi preview --expect-no-changes");
      });

      // "NotificationHandler": the TypeScript template's handlers are the dynamic provider's type.
      await expectSecretsKept(s, [key, SLACK_WEBHOOK], ["NotificationHandler"]);

      await storyStep("destroy leaves the account empty", async () => {
        await s.mustSh("pulumi destroy --yes");
        expect(await listAll(api)).toEqual([]);
      });
    });
  },
);
