/**
 * Runs a GitHub Actions workflow's job on this machine, as far as a test can: every `run:` step as
 * written, with GitHub's default shell (`bash --noprofile --norc -eo pipefail`), the workflow's, the
 * job's and the step's `env`, `${{ ... }}` expressions taken from a context the test gives, and the
 * files GitHub provides (`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`, the folder `RUNNER_TEMP`). A `uses:` step is one the test
 * environment stands in for (checkout: the project folder; setup-node and pulumi/actions: Node.js and
 * the Pulumi CLI on PATH); any other action fails the run, so a workflow cannot grow a step no test
 * takes. `if:` knows `always()`, `success()` and `failure()`, as GitHub's step status functions.
 *
 * Jobs run one after another in one checkout, as a test runs a repository's workflows, so a later
 * job's `npm ci` would install again what an earlier job's `npm ci` just installed there: given
 * `installed`, such a step is taken as done while the manifest, the lockfile and the installed tree
 * are byte for byte as that run left them (see {@link JobOptions.installed}).
 */
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";

import { runCommand, type CommandResult } from "../../../scripts/support/user-project";

/** The actions a test environment provides, by name (the part before `@`). */
const PROVIDED_ACTIONS = new Set([
  "actions/checkout",
  "actions/setup-node",
  "pulumi/actions",
  // The test puts the artifact where the step's `path` says before the job runs.
  "actions/download-artifact",
]);

interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string | number | boolean>;
  "working-directory"?: string;
}

interface WorkflowJob {
  env?: Record<string, string | number | boolean>;
  steps: WorkflowStep[];
}

interface Workflow {
  env?: Record<string, string | number | boolean>;
  jobs: Record<string, WorkflowJob>;
}

/** One step as it ran. */
export interface StepRun {
  name: string;
  /**
   * Undefined for a step that was not run (its `if:` was false), an action the test provides, or an
   * install taken as done (`installedBy`).
   */
  result?: CommandResult;
  /** The job whose identical install, on the same files, this step was taken as (see `JobOptions.installed`). */
  installedBy?: string;
}

/** The outcome of a job. */
export interface JobRun {
  /** Whether every step run succeeded, as GitHub decides the job's conclusion. */
  success: boolean;
  steps: StepRun[];
  /** What the steps appended to `$GITHUB_STEP_SUMMARY`. */
  summary: string;
}

/** What a job runs with. */
export interface JobOptions {
  /** The checked-out repository: steps run here. */
  cwd: string;
  /** The runner's environment (PATH with Node.js and the Pulumi CLI). */
  env: NodeJS.ProcessEnv;
  /** Values of `${{ ... }}` expressions, by their text: `secrets.X`, `vars.X`, `github.token`... */
  context: Record<string, string>;
  /**
   * Shared by the jobs of one checkout: each `npm ci` that succeeds is recorded here, and a later
   * `npm ci` in the same folder is taken as done while that folder's package.json, package-lock.json
   * and node_modules/.package-lock.json (the tree npm wrote) are unchanged. Without it every step runs.
   */
  installed?: Map<string, { job: string; files: string }>;
}

/** The commands that install exactly what the lockfile pins, and nothing else: the same files, the same tree. */
const LOCKFILE_INSTALLS = new Set(["npm ci"]);

/** The files an `npm ci` in `folder` reads and writes, hashed; undefined while one is missing. */
async function installFiles(folder: string): Promise<string | undefined> {
  const hash = createHash("sha256");
  for (const file of ["package.json", "package-lock.json", join("node_modules", ".package-lock.json")]) {
    const text = await readFile(join(folder, file)).catch(() => undefined);
    if (text === undefined) return undefined;
    hash.update(file).update("\0").update(text).update("\0");
  }
  return hash.digest("hex");
}

/** Reads a workflow file. */
export async function readWorkflow(path: string): Promise<Workflow> {
  const workflow = parse(await readFile(path, "utf8")) as Workflow;
  if (typeof workflow !== "object" || workflow === null || typeof workflow.jobs !== "object") {
    throw new Error(`${path} is not a workflow (no jobs)`);
  }
  return workflow;
}

/** Runs the job `jobName` of `workflow` (see the module comment). */
export async function runJob(workflow: Workflow, jobName: string, options: JobOptions): Promise<JobRun> {
  const job = workflow.jobs[jobName];
  if (job === undefined) throw new Error(`the workflow has no job ${jobName}`);
  const files = await mkdtemp(join(tmpdir(), "notification-handlers-runner-"));
  const summaryFile = join(files, "step-summary.md");
  await writeFile(summaryFile, "");
  const expand = (text: string): string =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
      const value = options.context[expression];
      if (value === undefined) throw new Error(`no value for the expression \${{ ${expression} }}`);
      return value;
    });
  const envOf = (env: WorkflowStep["env"]): Record<string, string> =>
    Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, expand(String(v))]));

  const steps: StepRun[] = [];
  let success = true;
  try {
    for (const [index, step] of job.steps.entries()) {
      const name = step.name ?? step.uses ?? `step ${index + 1}`;
      if (!shouldRun(step.if, success)) {
        steps.push({ name });
        continue;
      }
      if (step.uses !== undefined) {
        const action = step.uses.split("@")[0] ?? step.uses;
        if (!PROVIDED_ACTIONS.has(action))
          throw new Error(`the test environment does not provide the action ${step.uses}`);
        steps.push({ name });
        continue;
      }
      if (step.run === undefined) throw new Error(`step ${name} has neither run nor uses`);
      const command = expand(step.run);
      const cwd =
        step["working-directory"] === undefined ? options.cwd : join(options.cwd, step["working-directory"]);
      const install = options.installed !== undefined && LOCKFILE_INSTALLS.has(command.trim());
      if (install) {
        const earlier = options.installed?.get(cwd);
        if (earlier !== undefined && earlier.files === (await installFiles(cwd))) {
          steps.push({ name, installedBy: earlier.job });
          continue;
        }
      }
      const output = join(files, `output-${index}`);
      await writeFile(output, "");
      const result = await runCommand("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", command], {
        cwd,
        env: {
          ...options.env,
          CI: "true",
          GITHUB_ACTIONS: "true",
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_OUTPUT: output,
          RUNNER_TEMP: files,
          ...envOf(workflow.env),
          ...envOf(job.env),
          ...envOf(step.env),
        },
      });
      steps.push({ name, result });
      if (result.code !== 0) success = false;
      if (install) {
        const installed = result.code === 0 ? await installFiles(cwd) : undefined;
        if (installed === undefined) options.installed?.delete(cwd);
        else options.installed?.set(cwd, { job: jobName, files: installed });
      }
    }
    return { success, steps, summary: await readFile(summaryFile, "utf8") };
  } finally {
    await rm(files, { recursive: true, force: true });
  }
}

/** GitHub's step condition, for the status functions; any other expression is refused. */
function shouldRun(condition: string | undefined, success: boolean): boolean {
  const text = condition?.replace(/^\$\{\{\s*|\s*\}\}$/g, "").trim();
  if (text === undefined || text === "success()") return success;
  if (text === "always()") return true;
  if (text === "failure()") return !success;
  throw new Error(`the runner cannot evaluate if: ${condition}`);
}
