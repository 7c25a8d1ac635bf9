/**
 * `notification-handlers export` on the user's path: the package installed from its tarball, the
 * export run as its bin with `--stack`, the exported project installed and brought up with the Pulumi
 * CLI. An account with all 12 types, names with HTML, quotes and `&`, two handlers of one name and a
 * disabled one is taken over with no write at all, and the next preview has no change: as TypeScript
 * from the reference server, and as a YAML handler set from an emulated 2026 instance (which rewrites
 * values: tags stripped, quotes as entities, whatsapp as an integer). The plan of values is the same
 * for both formats (unit/cli-export-plan). No secret reaches a file, the state or the output. The
 * stack's config holds the update strategy the export chose: replace for the emulated instance,
 * in-place for the reference server unless `--update-strategy` says otherwise.
 *
 * All or nothing: with no backend logged in, the export says to log in and leaves the folder as it
 * was, and the same command then succeeds; a `--force` export whose stack cannot be made leaves the
 * folder's files as they were. Taken over, not owned: a destroy of the YAML project leaves the account
 * as it was; the TypeScript project is handed over as docs/export-and-gitops.md says (an up that
 * writes nothing and makes the state stop retaining), and its destroy then empties the account.
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import type { NotificationHandlerCreateParams } from "../../sdk/client/domain/resources/handler-params";
import {
  copyExample,
  mustRun,
  REPOSITORY_ROOT,
  runCommand,
  scratchFolder,
  userEnvironment,
  type CommandResult,
} from "../../scripts/support/user-project";
import { EMULATED_2026, REFERENCE, type TestServer, startServer } from "../support/engine/stacks";
import { seedDependencies } from "../support/engine/user-path";

const SECRETS = {
  webhook: "https://hooks.example.com/deploy?token=EXPORT-SECRET-1",
  slack: "https://hooks.slack.com/services/T0/B0/EXPORT-SECRET-2",
  discord: "https://discord.com/api/webhooks/1/EXPORT-SECRET-3",
  telegram: "123456:EXPORT-SECRET-4",
  microsoftTeams: "https://example.webhook.office.com/EXPORT-SECRET-5",
  xConsumerKey: "EXPORT-SECRET-6",
  xConsumerSecret: "EXPORT-SECRET-7",
  xAccessToken: "EXPORT-SECRET-8",
  xAccessTokenSecret: "EXPORT-SECRET-9",
  googleChat: "https://chat.googleapis.com/v1/spaces/A/messages?key=EXPORT-SECRET-10",
};

/** What the web UI holds before the export: every type, awkward names, a duplicate, a disabled one. */
const ACCOUNT: NotificationHandlerCreateParams[] = [
  { type: "email", name: 'Ops <b>on-call</b> "primary"', email: "ops@example.com" },
  { type: "webhook", name: "Deploys & releases", webhook: SECRETS.webhook },
  { type: "slack", name: "Team's Slack", slack: SECRETS.slack },
  { type: "discord", name: "Duplicate", discord: SECRETS.discord },
  { type: "telegram", name: "Duplicate", telegram: SECRETS.telegram, telegram_chat_id: "-1001234" },
  { type: "microsoft_teams", name: "Teams", microsoft_teams: SECRETS.microsoftTeams, is_enabled: false },
  { type: "twilio", name: "SMS", twilio: "+15551234567" },
  { type: "twilio_call", name: "Call", twilio_call: "+15557654321" },
  { type: "whatsapp", name: "WhatsApp", whatsapp: "+15550001111" },
  {
    type: "x",
    name: "X bot",
    x_consumer_key: SECRETS.xConsumerKey,
    x_consumer_secret: SECRETS.xConsumerSecret,
    x_access_token: SECRETS.xAccessToken,
    x_access_token_secret: SECRETS.xAccessTokenSecret,
  },
  { type: "google_chat", name: "Chat", google_chat: SECRETS.googleChat },
  { type: "internal_notification", name: "Inbox" },
];

describe("notification-handlers export, then pulumi up of the exported project", () => {
  let scratch: string;
  let exportBin: string;

  beforeAll(async () => {
    scratch = await scratchFolder("export");
    // The tool the way a user gets it: the bin of the package installed from the registry, here in
    // a copy of the quickstart.
    const tools = join(scratch, "tools");
    await copyExample({ source: "examples/quickstart", destination: tools });
    await seedDependencies(
      tools,
      userEnvironment({ home: join(scratch, "home"), pathFirst: inject("enginePath") }),
    );
    exportBin = join(tools, "node_modules", ".bin", "notification-handlers");
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  // Each format once. The deployed instance lists as such (the replace strategy) and stores values
  // cleaned; 2025's differences (filters ignored) are in what the export reads, proved as a process
  // in integration/cli-commands.
  describe.each([
    { target: REFERENCE, format: "typescript" },
    { target: EMULATED_2026, format: "yaml" },
  ])("from $target.name as $format", ({ target, format }) => {
    let server: TestServer | undefined;
    let client: NotificationHandlersClient | undefined;

    afterAll(async () => {
      await client?.close();
      await server?.close();
    });

    it("takes every handler over with no write, and the next preview has no change", async () => {
      const pathFirst = inject("enginePath");
      server = await startServer(target.emulate === undefined ? {} : { emulate: target.emulate });
      const key = await server.newKey();
      client = new NotificationHandlersClient({ baseURL: server.url, apiKey: key, maxRetries: 0 });
      for (const params of ACCOUNT) await client.notificationHandlers.create(params);
      const before = await server.handlers(key);
      expect(before).toHaveLength(ACCOUNT.length);

      const root = join(scratch, `${target.emulate ?? "reference"}-${format}`);
      const project = join(root, "handlers");
      const env = userEnvironment({
        home: join(root, "home"),
        pathFirst,
        extra: {
          PULUMI_HOME: join(root, "home", ".pulumi"),
          PULUMI_BACKEND_URL: `file://${join(root, "state")}`,
          PULUMI_CONFIG_PASSPHRASE: "local-only",
        },
      });
      await mkdir(join(root, "state"), { recursive: true });
      const transcript: CommandResult[] = [];
      const run = async (
        command: string,
        args: string[],
        extra: Record<string, string> = {},
      ): Promise<CommandResult> => {
        const result = await mustRun(command, args, { cwd: project, env: { ...env, ...extra } });
        transcript.push(result);
        return result;
      };

      await mkdir(project, { recursive: true });
      const exportArgs = [
        "export",
        "--base-url",
        server.url,
        "--out",
        ".",
        "--stack",
        "dev",
        "--package",
        inject("packages")["pulumi-notification-handlers"],
        "--force",
        "--format",
        format,
      ];
      if (format === "typescript") {
        // First with no backend logged in: a Pulumi home with no credentials, no PULUMI_BACKEND_URL.
        const { PULUMI_BACKEND_URL: _, ...loggedOut } = env;
        const refused = await runCommand(exportBin, exportArgs, {
          cwd: project,
          env: { ...loggedOut, PULUMI_HOME: join(root, "logged-out"), NOTIFICATION_HANDLERS_API_KEY: key },
        });
        transcript.push(refused);
        expect(refused.code, refused.stderr).toBe(1);
        expect(refused.stderr).toMatch(
          /^notification-handlers: --stack needs a Pulumi backend to make the stack in, and `pulumi whoami` names none \(.+\): log in with `pulumi login` .*, then run the export again; \S+ is left as it was\n$/,
        );
        expect(await readdir(project)).toEqual([]);
      }
      const exported = await run(exportBin, exportArgs, { NOTIFICATION_HANDLERS_API_KEY: key });
      expect(exported.stdout).toContain(`Exported ${ACCOUNT.length} handlers`);
      expect(exported.stdout).toContain("Stack dev is made and configured (11 secrets, encrypted)");
      // Deployed instances (list answers with meta.total_results) get replace: their 2025 and 2026
      // versions do not apply in-place updates. The reference server keeps the default.
      const strategy = target.emulate === undefined ? "in-place" : "replace";
      expect(exported.stdout).toContain(`Update strategy: ${strategy}, the site answered as`);
      const stackConfig = await readFile(join(project, "Pulumi.dev.yaml"), "utf8");
      expect(stackConfig).toMatch(new RegExp(`^ {2}notification-handlers:updateStrategy: ${strategy}$`, "m"));

      // No secret value in any file the export wrote, the stack's config included (ciphertext only).
      const files = (await readdir(project)).filter((f) => f !== "node_modules");
      expect(files.sort()).toEqual(
        [
          ".gitignore",
          "Pulumi.dev.yaml",
          "Pulumi.yaml",
          "README.md",
          ...(format === "yaml" ? ["handlers.yaml"] : []),
          "index.ts",
          "package.json",
          "tsconfig.json",
        ].sort(),
      );
      for (const file of files) {
        const text = await readFile(join(project, file), "utf8");
        for (const secret of [key, ...Object.values(SECRETS)])
          expect(text.includes(secret), `a secret in ${file}`).toBe(false);
      }
      if (format === "yaml") {
        const set = await readFile(join(project, "handlers.yaml"), "utf8");
        expect(set).toContain("  isEnabled: false\n");
        expect(set.match(/^ {2}adopt: \d+$/gm)).toHaveLength(ACCOUNT.length);
        expect(set).toMatch(/^duplicate-\d+:\n {2}type: discord$/m);
        expect(set).toMatch(/^duplicate-\d+:\n {2}type: telegram$/m);
        // The exported file is one `validate` takes.
        const validated = await run(exportBin, ["validate", "handlers.yaml"]);
        expect(validated.stdout).toContain(`${ACCOUNT.length} handlers in 1 file: no problems`);
      } else {
        const index = await readFile(join(project, "index.ts"), "utf8");
        expect(index).toContain("isEnabled: false,");
        expect(index.match(/adopt: \d+,/g)).toHaveLength(ACCOUNT.length);
        expect(index).toMatch(/new NotificationHandler\("duplicate-\d+", \{\n {2}type: "discord"/);
        expect(index).toMatch(/new NotificationHandler\("duplicate-\d+", \{\n {2}type: "telegram"/);
      }

      // An exported project's dependencies are the quickstart's, less the server: its lockfile pins them.
      await seedDependencies(
        project,
        env,
        join(REPOSITORY_ROOT, "examples", "quickstart", "package-lock.json"),
      );
      await run("npm", ["install", "--no-audit", "--no-fund"]);
      const mark = server.served.length;
      // The update alone: its preview would run the program once more, and nothing reads what it shows.
      const up = await run("pulumi", ["up", "--yes", "--skip-preview", "--stack", "dev"]);
      // The stack, the handler set's component in YAML, and every handler.
      const resources = ACCOUNT.length + (format === "yaml" ? 2 : 1);
      expect(up.stdout).toContain(`+ ${resources} created`);
      // The project's README says the first preview shows them all as creates, in the same count.
      expect(await readFile(join(project, "README.md"), "utf8")).toContain(`\`+ ${resources} to create\``);
      expect(server.countSince(mark).writes, "writes to the API during the takeover").toBe(0);
      expect(await server.handlers(key)).toEqual(before); // same ids, same values, not even last_datetime moved

      const preview = await runCommand("pulumi", ["preview", "--expect-no-changes", "--stack", "dev"], {
        cwd: project,
        env,
      });
      transcript.push(preview);
      expect(preview.code, `${preview.stdout}\n${preview.stderr}`).toBe(0);

      const outputs = JSON.parse(
        (await run("pulumi", ["stack", "output", "--json", "--stack", "dev"])).stdout,
      ) as {
        handlerIds: Record<string, number>;
      };
      expect(Object.values(outputs.handlerIds).sort((a, b) => a - b)).toEqual(before.map((h) => h.id));

      const stacks = join(root, "state", ".pulumi", "stacks", "handlers");
      const readState = async (): Promise<string> =>
        readFile(
          join(
            stacks,
            (await readdir(stacks)).find((f) => f.startsWith("dev.json"))!,
          ),
          "utf8",
        );
      const stateText = await readState();
      const expectNoSecretInOutput = (): void => {
        const output = transcript.map((r) => `${r.stdout}\n${r.stderr}`).join("\n");
        for (const secret of [key, ...Object.values(SECRETS)])
          expect(output.includes(secret), "a secret in the commands' output").toBe(false);
      };
      for (const secret of [key, ...Object.values(SECRETS)])
        expect(stateText.includes(secret), "a secret in the state").toBe(false);
      expectNoSecretInOutput();

      if (format === "yaml") {
        // Taken over, not owned: the set's transformation gave every handler retainOnDelete.
        const beforeDestroy = server.served.length;
        const destroyed = await run("pulumi", ["destroy", "--yes", "--skip-preview", "--stack", "dev"]);
        expect(destroyed.stdout).toContain(`- ${ACCOUNT.length + 2} deleted`);
        const retained = destroyed.stdout
          .split("\n")
          .filter((line) => /:NotificationHandler \S+ deleted .*\[retain\]/.test(line));
        expect(retained).toHaveLength(ACCOUNT.length);
        expect(server.countSince(beforeDestroy).writes, "writes to the API during the destroy").toBe(0);
        expect(await server.handlers(key)).toEqual(before);
        return;
      }

      // --stack of a stack that exists: refused, and with --force its config is set again ...
      const again = join(root, "again", "handlers");
      const exportAgain = (extra: string[], env2: NodeJS.ProcessEnv): Promise<CommandResult> =>
        runCommand(exportBin, ["export", "--base-url", server!.url, "--out", again, ...extra], {
          cwd: root,
          env: { ...env2, NOTIFICATION_HANDLERS_API_KEY: key },
        });
      const exists = await exportAgain(["--stack", "dev"], env);
      expect(exists.code).toBe(1);
      expect(exists.stderr).toContain(
        "the stack dev already exists in the current backend; choose another --stack, or pass --force to set its config",
      );
      // ... and --update-strategy overrides the detection there.
      const forced = await exportAgain(["--stack", "dev", "--force", "--update-strategy", "replace"], env);
      expect(forced.code, forced.stderr).toBe(0);
      expect(forced.stdout).toContain("Update strategy: replace, chosen with --update-strategy.");
      expect(await readFile(join(again, "Pulumi.dev.yaml"), "utf8")).toMatch(
        /^ {2}notification-handlers:updateStrategy: replace$/m,
      );
      // Without the passphrase the local backend cannot make a stack: the CLI's reason, no secret,
      // and the folder's files as they were, though the export wrote over them first.
      const contents = async (): Promise<Record<string, string>> =>
        Object.fromEntries(
          await Promise.all(
            (await readdir(again)).map(async (f) => [f, await readFile(join(again, f), "utf8")] as const),
          ),
        );
      const beforeFailure = await contents();
      const { PULUMI_CONFIG_PASSPHRASE: _, ...noPassphrase } = env;
      const failed = await exportAgain(["--stack", "staging", "--force"], noPassphrase);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(
        /^notification-handlers: making the stack staging failed: .*passphrase.*; \S+ is left as it was$/im,
      );
      expect(await contents()).toEqual(beforeFailure);
      transcript.push(exists, forced, failed);

      // Handing over full ownership, as docs/export-and-gitops.md says: the option out of the program,
      // then an up, which shows no change and writes nothing, yet makes the state stop retaining.
      const retaining = (state: string): number => state.match(/"retainOnDelete":\s*true/g)?.length ?? 0;
      expect(retaining(await readState())).toBe(ACCOUNT.length);
      const index = join(project, "index.ts");
      await writeFile(
        index,
        (await readFile(index, "utf8")).replaceAll("}, { retainOnDelete: true });", "});"),
      );
      const beforeHandOver = server.served.length;
      const handedOver = await run("pulumi", ["up", "--yes", "--skip-preview", "--stack", "dev"]);
      expect(handedOver.stdout).toContain(`${ACCOUNT.length + 1} unchanged`);
      expect(server.countSince(beforeHandOver).writes, "writes to the API during the hand-over").toBe(0);
      expect(await server.handlers(key)).toEqual(before);
      expect(retaining(await readState())).toBe(0);
      // Owned now: a destroy deletes every handler.
      const destroyed = await run("pulumi", ["destroy", "--yes", "--skip-preview", "--stack", "dev"]);
      expect(destroyed.stdout).toContain(`- ${ACCOUNT.length + 1} deleted`);
      expect(destroyed.stdout).not.toContain("[retain]");
      expect(await server.handlers(key)).toEqual([]);
      expectNoSecretInOutput();
    });
  });
});
