/**
 * The oldest @pulumi/pulumi version the package's peer range admits (3.139.0, the first with
 * `dynamic.ResourceProvider.configure`), proven by the quickstart run with the Pulumi CLI on the
 * dependencies test/fixtures/oldest-sdk pins. The version each example's lockfile pins is proven by
 * the example's own test.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, inject, it } from "vitest";

import { NotificationHandlersClient } from "../../sdk/client/client";
import { REPOSITORY_ROOT } from "../../scripts/user-project";
import { installedVersion, listAll, runItSteps, UserSession } from "./user-path";

const manifest = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
  peerDependencies: Record<string, string>;
};
const OLDEST = /^\^(\d+\.\d+\.\d+)$/.exec(manifest.peerDependencies["@pulumi/pulumi"] ?? "")?.[1];
const PROVEN = "3.139.0";

describe("a program on the oldest @pulumi/pulumi version of the peer range", () => {
  let session: UserSession | undefined;
  let client: NotificationHandlersClient | undefined;

  afterEach(async () => {
    await client?.close();
    await session?.dispose();
    client = session = undefined;
  });

  it("proves the oldest version of the peer range", () => {
    expect(OLDEST, "the peer range is ^x.y.z").toBe(PROVEN);
  });

  it(`runs the quickstart on @pulumi/pulumi ${PROVEN}: up, no change after, destroy`, async () => {
    const steps = await runItSteps("quickstart");
    session = await UserSession.start("quickstart", {
      pathFirst: inject("enginePath"),
      pins: "test/fixtures/oldest-sdk",
    });
    await session.step(steps[0]!);
    expect(await installedVersion(session, "@pulumi/pulumi")).toBe(PROVEN);
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
