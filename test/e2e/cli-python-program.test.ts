/**
 * examples/python on the user's path, as with a release: yaml-program's handlers in Python through
 * the plugin and the generated Python SDK. `pip install -r requirements.txt` takes the SDK from a
 * stand-in of PyPI (its wheel fetched from there, the only package the install adds to the seeded
 * virtual environment), and the first `pulumi up` downloads the plugin from a stand-in of the GitHub
 * release, nothing else leaving the machine (see `program-on-two-sites.ts` for what is run and checked).
 * Then options Pulumi YAML lacks, added to the program: `replacementTrigger`, `replaceWith`, and an
 * `ignoreChanges` that a transform sets, which reaches the plugin. Then `pulumi` at the oldest version
 * the SDK accepts, installed from PyPI into the project's environment.
 */
import { expect } from "vitest";

import { onOldestPythonSdk } from "../support/engine/oldest-sdks";
import { describeProgramOnTwoSites, type TwoSites } from "../support/engine/program-on-two-sites";
import type { UserSession } from "../support/engine/user-path";
import { pythonSdkRegistries } from "../support/stand-ins/sdk-registries";
import { storyStep } from "../support/story-step";

/**
 * Appended to the example's program: a handler replaced by a trigger, another replaced with it, and
 * one whose name a transform leaves to the web UI (Python's transforms drop `replace_with` and fail
 * on `replacement_trigger`, so that one has neither). The first two are on the second site: on the
 * first, the story's requests would pass the reference server's 60 a minute, and its destroy would
 * wait a minute for the limit.
 */
const OPTIONS_YAML_LACKS = `
rotation = config.get("rotation") or "v0"
rotated = notification_handlers.NotificationHandler(
    "rotated",
    type=notification_handlers.HandlerType.EMAIL,
    name="Rotated",
    email="rotated@example.com",
    opts=pulumi.ResourceOptions(replacement_trigger=rotation, provider=production),
)
follower = notification_handlers.NotificationHandler(
    "follower",
    type=notification_handlers.HandlerType.INTERNAL_NOTIFICATION,
    name="Follower",
    opts=pulumi.ResourceOptions(replace_with=[rotated], provider=production),
)


def leave_name_to_ui(args: pulumi.ResourceTransformArgs):
    ignored = pulumi.ResourceOptions(ignore_changes=["name"])
    return pulumi.ResourceTransformResult(args.props, pulumi.ResourceOptions.merge(args.opts, ignored))


ui_named = notification_handlers.NotificationHandler(
    "ui-named",
    type=notification_handlers.HandlerType.EMAIL,
    name="UI named",
    email=config.get("uiNamedEmail") or "ui@example.com",
    opts=pulumi.ResourceOptions(transforms=[leave_name_to_ui]),
)
pulumi.export("rotatedId", rotated.handler_id)
pulumi.export("followerId", follower.handler_id)
pulumi.export("uiNamedId", ui_named.handler_id)
`;

type OwnIds = Record<"rotatedId" | "followerId" | "uiNamedId", number>;

async function optionsYamlLacks(s: UserSession, { staging }: TwoSites): Promise<void> {
  await storyStep(
    "a new trigger replaces a handler and the one replaced with it; a transform's ignoreChanges keeps a UI name",
    async () => {
      await s.mustSh(`cat >> __main__.py <<'EOF'\n${OPTIONS_YAML_LACKS}EOF\npulumi up --yes`);
      const ids = async (): Promise<OwnIds> =>
        JSON.parse((await s.mustSh("pulumi stack output --json")).stdout) as OwnIds;
      const before = await ids();
      await staging.notificationHandlers.update(before.uiNamedId, { name: "UI named (in the UI)" });

      const up = await s.mustSh(
        "pulumi config set rotation v1\npulumi config set uiNamedEmail ui2@example.com\npulumi up --yes",
      );
      expect(up.stdout).toMatch(/\+-2 replaced/);
      expect(up.stdout).toMatch(/~ 1 updated/);
      const after = await ids();
      expect(after.rotatedId).not.toBe(before.rotatedId);
      expect(after.followerId).not.toBe(before.followerId);
      expect(await staging.notificationHandlers.retrieve(after.uiNamedId)).toMatchObject({
        name: "UI named (in the UI)",
        settings: { email: "ui2@example.com" },
      });
    },
  );
}

describeProgramOnTwoSites({
  example: "python",
  installed: [
    "Looking in indexes: http://127.0.0.1:",
    // Everything else is in the seeded environment at the version constraints.txt pins.
    "Successfully installed pulumi-notification-handlers-0.2.0\n",
  ],
  registries: pythonSdkRegistries,
  ownSteps: optionsYamlLacks,
  toOldestSdk: onOldestPythonSdk,
});
