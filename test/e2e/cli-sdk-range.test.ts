/**
 * The oldest @pulumi/pulumi the package's peer range admits (3.139.0, the first with
 * `dynamic.ResourceProvider.configure`), in a user's program run with the Pulumi CLI: the quickstart,
 * its dependency pinned to that version.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client";
import { REPOSITORY_ROOT } from "../../scripts/user-project";
import { installedVersion, listAll, requireLanguageHost, runItSteps, UserSession } from "./user-path";

const manifest = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
  peerDependencies: Record<string, string>;
};
const OLDEST = /^\^(\d+\.\d+\.\d+)$/.exec(manifest.peerDependencies["@pulumi/pulumi"] ?? "")?.[1];

describe("a program on the oldest @pulumi/pulumi of the peer range", () => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;

  afterAll(async () => {
    await client?.close();
    await session?.dispose();
  });

  it(`runs the quickstart on @pulumi/pulumi ${OLDEST}: up, no change after, destroy`, async (context) => {
    const pathFirst = requireLanguageHost(context);
    expect(OLDEST, "the peer range is ^x.y.z").toBeDefined();
    const steps = await runItSteps("quickstart");
    session = await UserSession.start("quickstart", {
      pathFirst,
      dependencies: { "@pulumi/pulumi": OLDEST! },
    });
    await session.step(steps[0]!);
    expect(await installedVersion(session, "@pulumi/pulumi")).toBe(OLDEST);
    const key = await session.variable("KEY");
    client = new NotificationHandlersClient({ baseURL: session.url!, apiKey: key, maxRetries: 0 });

    await session.step(steps[1]!);
    expect((await listAll(client)).map((h) => h.name).sort()).toEqual([
      "On-call email",
      "Pager SMS",
      "Status inbox",
      "Team Slack",
    ]);
    await session.mustSh("pulumi preview --expect-no-changes");
    await session.mustSh("pulumi destroy --yes");
    expect(await listAll(client)).toEqual([]);
  });
});
