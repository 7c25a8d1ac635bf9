/**
 * The provider's source as the state records it, under install layouts where the project's root
 * folder does not find the package by name (docs/upgrading.md): pnpm's isolated layout and a nested
 * npm install (the fixture's `.npmrc`), each with the package reached only through `team-handlers`, a
 * local package of the program's; and a destroy whose package was removed, which names it.
 * A JavaScript program of two handlers (test/fixtures/install-layouts), the packed tarball, what the
 * fixture's lockfile pins (pnpm imports it), the Pulumi CLI as commands.
 */
import { readFileSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

import { describe, expect, inject, it } from "vitest";

import type { NotificationHandlersClient } from "../../sdk/client/client";
import { REPOSITORY_ROOT } from "../../scripts/support/user-project";
import { expectInstalledAsPinned, listAll, UserSession } from "../support/engine/user-path";

/** pnpm, pinned, run from the npm registry as a user without it installed would. */
const PNPM = "npx --yes pnpm@10.34.9";
const SERVER = join(REPOSITORY_ROOT, "server", "dist", "server", "main.js");
const FIXTURE = "test/fixtures/install-layouts";
const VERSION = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as { version: string }
).version;

/** What the fixture's lockfile pins, place by place. */
const PINNED = (
  JSON.parse(readFileSync(join(REPOSITORY_ROOT, FIXTURE, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string }>;
  }
).packages;

/**
 * A project of the fixture program, `team-handlers` taking the packed tarball, its reference server
 * started (the session closes its client); nothing installed yet.
 */
async function startProject(): Promise<{ session: UserSession; client: NotificationHandlersClient }> {
  const session = await UserSession.start("install-layouts", {
    pathFirst: inject("enginePath"),
    source: FIXTURE,
    seed: false,
  });
  const teamFile = join(session.project, "team-handlers", "package.json");
  const team = JSON.parse(await readFile(teamFile, "utf8")) as { dependencies: Record<string, string> };
  team.dependencies["pulumi-notification-handlers"] = inject("packages")["pulumi-notification-handlers"];
  await writeFile(teamFile, `${JSON.stringify(team, null, 2)}\n`);
  await session.mustSh(`export KEY=$(node ${SERVER} keys create --db .data/layouts.db --user me)`);
  await session.step({ intro: "", code: `node ${SERVER} serve --port 8080 --db .data/layouts.db &\n` });
  const { client } = await session.account();
  return { session, client };
}

/** The nested npm install the fixture's `.npmrc` asks for, checked against the lockfile. */
async function npmInstall(session: UserSession): Promise<void> {
  await session.mustSh(`npm install --no-audit --no-fund
test -d team-handlers/node_modules/pulumi-notification-handlers`);
  await expectInstalledAsPinned(session.project, PINNED);
}

/** The stack made and brought up: the program's two handlers exist. */
async function up(session: UserSession, client: NotificationHandlersClient): Promise<void> {
  await session.mustSh(`export PULUMI_CONFIG_PASSPHRASE=install-layouts
pulumi stack init dev
pulumi config set notification-handlers:baseUrl http://127.0.0.1:8080
pulumi config set --secret notification-handlers:apiKey "$KEY"
pulumi up --yes`);
  expect((await listAll(client)).map((h) => h.name).sort()).toEqual(["On-call email", "Status inbox"]);
}

/** Each handler's recorded source, one line: its contract, writer and folders. */
async function recordedHeads(session: UserSession): Promise<string[]> {
  const { stdout } = await session.mustSh("pulumi stack export", false);
  const state = JSON.parse(stdout) as { deployment: { resources: { outputs?: { __provider?: string } }[] } };
  return state.deployment.resources.flatMap((r) => r.outputs?.__provider?.split("\n")[0] ?? []);
}

/** Brings the stack up and previews no change, checking the folder each state records. */
async function upAndPreview(
  session: UserSession,
  client: NotificationHandlersClient,
  folder: string,
): Promise<void> {
  // The layout is one where the root folder alone cannot find the package: only the recorded folder can.
  const byName = await session.sh(
    `node -e 'require.resolve("pulumi-notification-handlers/provider/runtime")'`,
  );
  expect(byName.code, "the package resolves by name from the project's folder").not.toBe(0);
  await up(session, client);
  const recorded = `paths:[".","${folder}"]`;
  const heads = await recordedHeads(session);
  expect(heads).toHaveLength(2);
  for (const head of heads) {
    expect(head).toContain(recorded);
    expect(head).toContain(`.forContract(2,"${VERSION}")`);
  }
  await session.mustSh("pulumi preview --expect-no-changes");
}

describe.concurrent("the package under other install layouts", () => {
  it("pnpm's isolated layout: up, preview with no change, destroy", async () => {
    const { session, client } = await startProject();
    try {
      const pnpm = await session.mustSh(`${PNPM} --version`);
      expect(pnpm.stdout.trim(), "pnpm from the npm registry").toBe("10.34.9");
      // The user's pnpm store, as npm's cache is theirs (see userEnvironment). pnpm takes its lockfile
      // from npm's, and installs what it pins.
      const store = join(homedir(), ".cache", "pnpm-store");
      await session.mustSh(`${PNPM} import && ${PNPM} install --store-dir ${store}`);
      await session.mustSh("test -L node_modules/team-handlers && test -d node_modules/.pnpm");
      const pinned = new Set(
        Object.entries(PINNED).flatMap(([place, { version }]) =>
          place.includes("node_modules/") ? [`${place.replace(/^.*node_modules\//, "")}@${version}`] : [],
        ),
      );
      // pnpm's store folders are `name@version`, a scope's slash as `+`, peers after `_`.
      const installed = (await readdir(join(session.project, "node_modules", ".pnpm")))
        .filter((entry) => entry.includes("@") && !entry.includes("@file+"))
        .map((entry) => entry.replace(/_.*$/, "").replace("+", "/"));
      expect(installed.length).toBeGreaterThan(100);
      expect(
        installed.filter((p) => !pinned.has(p)),
        "installed but not pinned",
      ).toEqual([]);
      await upAndPreview(session, client, "node_modules/.pnpm");
      await session.mustSh("pulumi destroy --yes");
      expect(await listAll(client)).toEqual([]);
    } finally {
      await session.dispose();
    }
  });

  it("a nested npm install, under a local package: up, preview with no change; a destroy with the package removed names the missing module, installed again it destroys", async () => {
    const { session, client } = await startProject();
    try {
      await npmInstall(session);
      await upAndPreview(session, client, "team-handlers");
      await session.mustSh("rm -rf team-handlers/node_modules/pulumi-notification-handlers");
      const failed = await session.sh("pulumi destroy --yes");
      expect(failed.code).not.toBe(0);
      expect(failed.stdout).toContain("Cannot find module 'pulumi-notification-handlers/provider/runtime'");
      expect(await listAll(client)).toHaveLength(2);
      await session.mustSh("npm install --no-audit --no-fund");
      await session.mustSh("pulumi destroy --yes");
      expect(await listAll(client)).toEqual([]);
    } finally {
      await session.dispose();
    }
  });
});
