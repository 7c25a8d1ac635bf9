/**
 * examples/gitops on the user's path: its README's "Run it" steps, then the three workflow files'
 * jobs as written (see workflow-runner.ts) against the reference server: a pull request's change is
 * summarized and posted with `gh`, changes made in the web UI fail the drift check with a summary
 * that names each handler and field, secrets as [secret], and the merged change is deployed, the drift
 * repaired with it. (A clean check's summary is the summary's
 * unit test; its exit code is `pulumi preview --expect-no-changes`'s own.)
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";

import { REPOSITORY_ROOT, userEnvironment } from "../../scripts/support/user-project";
import { listAll, startExample } from "../support/engine/user-path";
import { type JobRun, readWorkflow, runJob } from "../support/engine/workflow-runner";

const WORKFLOWS = join(REPOSITORY_ROOT, "examples", "gitops", ".github", "workflows");
const README_WEBHOOK = "https://hooks.slack.com/services/T000/B000/XXXX";
const UI_WEBHOOK = "https://hooks.slack.com/services/T000/B000/CHANGED-IN-THE-UI";

// Stands in for GitHub's `gh` CLI: records its arguments and the comment body it was given.
const FAKE_GH = `#!/usr/bin/env bash
[ -n "$GH_TOKEN" ] || { echo "gh: GH_TOKEN is not set" >&2; exit 4; }
printf '%s\\n' "$@" > "$GH_RECORD/args"
previous=""
for argument in "$@"; do
  if [ "$previous" = "--body-file" ]; then cp "$argument" "$GH_RECORD/body.md"; fi
  previous="$argument"
done
`;

/** Everything a job printed, for checks that no secret shows. */
const printed = (run: JobRun): string =>
  run.steps.map((s) => `${s.result?.stdout ?? ""}\n${s.result?.stderr ?? ""}`).join("\n") + run.summary;

describe("examples/gitops, its README and its workflows run with the Pulumi CLI", () => {
  it("reviews a change, and fails the drift check after edits in the web UI", async () => {
    const { session, steps } = await startExample("gitops", 4);

    // The README, by hand.
    await session.step(steps[0]!);
    const { key, client } = await session.account();
    await session.step(steps[1]!);
    const handlers = await listAll(client);
    const NAMES = ["On-call email", "Status inbox", "Team Slack"];
    expect(handlers.map((h) => h.name).sort()).toEqual(NAMES);
    const [oncall, inbox, slack] = NAMES.map((name) => handlers.find((h) => h.name === name));

    const [review] = await session.step(steps[2]!);
    expect(review!.stdout).toContain(
      `| update | \`team-slack\` | ${slack!.id} "Team Slack" (in the code: "Team Slack (alerts)") | \`name\`: "Team Slack" → "Team Slack (alerts)" (changed in the code) |`,
    );
    const [drift] = await session.step(steps[3]!);
    expect(drift!.stdout).toContain("drift found");
    expect(drift!.stdout).toContain(
      `| update | \`oncall-email\` | ${oncall!.id} "Renamed in the web UI" (in the code: "On-call email") | \`name\`: "Renamed in the web UI" → "On-call email" (changed outside the code) |`,
    );
    expect((await listAll(client)).map((h) => h.name).sort()).toEqual(NAMES);

    // The workflows, as GitHub runs them.
    const runner = join(session.root, "runner");
    const record = join(runner, "gh-record");
    await mkdir(join(runner, "bin"), { recursive: true });
    await mkdir(record);
    await writeFile(join(runner, "bin", "gh"), FAKE_GH);
    await chmod(join(runner, "bin", "gh"), 0o755);
    const job = {
      cwd: session.project,
      env: {
        ...userEnvironment({
          home: join(runner, "home"),
          pathFirst: [join(runner, "bin"), ...inject("enginePath")],
        }),
        GH_RECORD: record,
        // The registry the runner's `npm ci` takes the release's packages from.
        npm_config_registry: inject("npmRegistry").url,
      },
      context: {
        "vars.PULUMI_BACKEND_URL": `file://${join(session.root, "state")}`,
        "secrets.PULUMI_CONFIG_PASSPHRASE": "local-only",
        "secrets.NOTIFICATION_HANDLERS_API_KEY": key,
        "github.token": "ghs_placeholder",
        "github.event.pull_request.number": "42",
      },
      // The jobs share this checkout: the first `npm ci` installs, and the later ones, the same
      // command on the same lockfile, find its tree (workflow-runner.ts).
      installed: new Map<string, { job: string; files: string }>(),
    };
    const driftWorkflow = await readWorkflow(join(WORKFLOWS, "notification-handlers-drift.yml"));
    const previewWorkflow = await readWorkflow(join(WORKFLOWS, "notification-handlers-preview.yml"));
    const deployWorkflow = await readWorkflow(join(WORKFLOWS, "notification-handlers-deploy.yml"));

    // A service team's pull request edits its YAML file.
    const file = join(session.project, "handlers", "teams.yaml");
    const original = await readFile(file, "utf8");
    await writeFile(file, original.replace("name: Status inbox", "name: Status page inbox"));
    const pullRequest = await runJob(previewWorkflow, "preview", job);
    await writeFile(file, original);
    expect(pullRequest.success, printed(pullRequest)).toBe(true);
    expect(pullRequest.steps.find((s) => s.name === "Install")?.result?.code).toBe(0);
    const validate = pullRequest.steps.find((s) => s.name === "Check the handler files")!;
    expect(validate.result!.stdout).toContain("1 handler in 1 file: no problems");
    const row = `| update | \`status-inbox\` | ${inbox!.id} "Status inbox" (in the code: "Status page inbox") | \`name\`: "Status inbox" → "Status page inbox" (changed in the code) |`;
    expect(pullRequest.summary).toContain(row);
    expect((await readFile(join(record, "args"), "utf8")).split("\n")).toEqual([
      "pr",
      "comment",
      "42",
      "--body-file",
      "summary.md",
      "--edit-last",
      "--create-if-none",
      "",
    ]);
    expect(await readFile(join(record, "body.md"), "utf8")).toBe(pullRequest.summary);

    // Someone changes the Slack webhook and deletes the inbox in the web UI.
    await client.notificationHandlers.update(slack!.id, { type: "slack", slack: UI_WEBHOOK });
    await client.notificationHandlers.delete(inbox!.id);
    const drifted = await runJob(driftWorkflow, "drift", job);
    expect(drifted.success).toBe(false);
    expect(drifted.steps.find((s) => s.name === "Install")?.installedBy).toBe("preview");
    const check = drifted.steps.find((s) => s.name === "Check for drift")!;
    expect(check.result!.code).not.toBe(0);
    expect(check.result!.stdout).toContain("::error::The notification handlers of prod differ from the code");
    expect(drifted.summary).toContain("1 to update, 1 to replace.");
    expect(drifted.summary).toContain(
      `| update | \`team-slack\` | ${slack!.id} "Team Slack" | \`slack\`: [secret] → [secret] (changed outside the code) |`,
    );
    expect(drifted.summary).toContain(
      `| replace | \`status-inbox\` | ${inbox!.id} "Status inbox" | **deleted outside the code**; made again |`,
    );

    // The pull request is merged: the deploy applies it and repairs the drift, nothing to recover.
    await writeFile(file, original.replace("name: Status inbox", "name: Status page inbox"));
    const deployed = await runJob(deployWorkflow, "deploy", job);
    expect(deployed.success, printed(deployed)).toBe(true);
    expect(deployed.steps.find((s) => s.name === "Install")?.installedBy).toBe("preview");
    const recovered = deployed.steps.find((s) => s.name === "Record what a cut-off deploy made")!;
    expect(recovered.result!.stdout).toBe("no pending operations: nothing to recover\n");
    const after = await listAll(client);
    expect(after.map((h) => h.name).sort()).toEqual(["On-call email", "Status page inbox", "Team Slack"]);
    expect(after.find((h) => h.name === "Team Slack")?.settings).toEqual({ slack: README_WEBHOOK });

    for (const run of [pullRequest, drifted, deployed]) {
      for (const secret of [key, README_WEBHOOK, UI_WEBHOOK]) {
        expect(printed(run).includes(secret), "a secret in a job's output").toBe(false);
      }
    }
    for (const secret of [key, README_WEBHOOK, UI_WEBHOOK]) {
      expect(session.transcript.join("\n").includes(secret), "a secret in the README's output").toBe(false);
    }
  });
});
