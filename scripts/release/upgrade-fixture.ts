/**
 * The stacks each release records for the upgrade test: the programs, where their recordings go, and
 * what the recording (`record-upgrade-state.ts`) and the tests that read the recordings share. A leaf:
 * the unit tests read it without loading the recording's tools.
 */
import { readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A program whose stack each release records. */
export interface UpgradeProgram {
  /** The program's folder, relative to the repository. */
  source: string;
  /** What follows the version in the name of its recordings' folders: `<version><suffix>`. */
  suffix: string;
  /** The folder whose package.json and lockfile it installs (the server), when it has none. */
  pins?: string;
  /**
   * Its resources name the plugin's version and download URL as README.md tells a YAML user to, the
   * version written {@link RECORDED_VERSION}: the engine downloads the plugin of that version.
   */
  downloadsPlugin?: boolean;
  /** The secret config values, so the tests can check that none shows in plain text. */
  secrets: Readonly<Record<string, string>>;
}

/** What the recording and the upgrade test share. */
export const UPGRADE_FIXTURE = {
  /** The recorded releases' folders, relative to the repository. */
  releases: "test/fixtures/upgrade",
  stack: "upgrade",
  /** Encrypts the fixture's secrets; it protects nothing real. */
  passphrase: "upgrade-fixture",
  /** The reference server's user that owns the handlers. */
  user: "fixture",
  /** The handler that exists before the first up, which each program adopts. */
  adopted: { type: "internal_notification", name: "Status inbox" },
  programs: {
    typescript: {
      source: "test/fixtures/upgrade/program",
      suffix: "",
      secrets: {
        slackWebhook: "https://hooks.slack.com/services/T000/B000/UPGRADE",
        teamSlackWebhook: "https://hooks.slack.com/services/T000/B000/TEAM",
      },
    },
    yaml: {
      source: "test/fixtures/upgrade/yaml-program",
      suffix: "-yaml",
      pins: "examples/yaml-program",
      downloadsPlugin: true,
      secrets: {
        webhookUrl: "https://example.com/hooks/UPGRADE-YAML",
        opsDiscordWebhook: "https://discord.com/api/webhooks/2/UPGRADE-YAML",
      },
    },
  } satisfies Record<string, UpgradeProgram>,
} as const;

/** A release's recording of one program's stack: its folder's name under `releases`, and the program. */
export interface Recording {
  name: string;
  /** The release's version, which the folder's name starts with. */
  version: string;
  program: UpgradeProgram;
}

/** What a program that downloads the plugin has in place of the version its resources name. */
export const RECORDED_VERSION = "RECORDED_VERSION";

/**
 * Puts `version` in place of {@link RECORDED_VERSION} in the Pulumi.yaml of the program copied to
 * `project`: the package's version when recording, the recording's when replaying.
 */
export async function nameRecordedVersion(project: string, version: string): Promise<void> {
  const file = join(project, "Pulumi.yaml");
  const text = await readFile(file, "utf8");
  if (!text.includes(RECORDED_VERSION)) throw new Error(`${file} names no ${RECORDED_VERSION}`);
  await writeFile(file, text.replaceAll(RECORDED_VERSION, version));
}

/** Every recording under `releases` in the repository at `root`; a folder no program claims is an error. */
export function recordings(root: string): Recording[] {
  const programs: UpgradeProgram[] = Object.values(UPGRADE_FIXTURE.programs);
  return readdirSync(join(root, UPGRADE_FIXTURE.releases), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d+\.\d+\.\d+/.test(entry.name))
    .map(({ name }) => {
      const version = /^\d+\.\d+\.\d+/.exec(name)![0];
      const program = programs.find((p) => p.suffix === name.slice(version.length));
      if (program === undefined)
        throw new Error(`${UPGRADE_FIXTURE.releases}/${name}: no program records it`);
      return { name, version, program };
    });
}
