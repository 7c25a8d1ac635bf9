/**
 * The package's policy pack run as a user runs it in an example's folder (docs/policies.md): `pulumi
 * preview` with `--policy-pack` on the installed package's pack and a config of the test's, the event
 * log kept for a scan of every secret's bytes.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { expect } from "vitest";

import type { UserSession } from "./user-path";

/** The ready pack, where the example's `npm install` puts it. */
export const SHIPPED_PACK = "node_modules/pulumi-notification-handlers/policy-pack";

/** A preview's exit code, everything it printed, and its event log's path. */
export interface PolicyRun {
  code: number | null;
  printed: string;
  events: string;
}

/**
 * `pulumi preview` (or `command`) with the ready pack and `config` as its `--policy-pack-config`, and
 * `--event-log` (a debug flag of the pinned CLI).
 */
export async function runWithPolicies(
  s: UserSession,
  config: object,
  command = "pulumi preview",
): Promise<PolicyRun> {
  const file = join(s.root, "policy-config.json");
  await writeFile(file, JSON.stringify(config));
  const events = join(s.root, `events-${Date.now()}.json`);
  const run = await s.sh(
    `PULUMI_DEBUG_COMMANDS=true ${command} --event-log ${events} --policy-pack ${SHIPPED_PACK} --policy-pack-config ${file}`,
  );
  return { code: run.code, printed: `${run.stdout}\n${run.stderr}`, events };
}

/** The line the CLI prints under `Policies:` for a violation of `rule` by the resource `name`. */
export function violationLine(
  level: "mandatory" | "advisory",
  rule: string,
  type: string,
  name: string,
): RegExp {
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return new RegExp(`\\[${level}\\] +${escaped(rule)} +\\(${escaped(type)}: ${escaped(name)}\\)`);
}

/**
 * Fails when a line of the event log holds one of `secrets`, the SDK's debug messages aside: a Node.js
 * program's SDK logs each registration's answer there, secrets in the clear (docs/policies.md).
 */
export async function expectEventLogKeepsSecrets(events: string, secrets: string[]): Promise<void> {
  const lines = (await readFile(events, "utf8")).split("\n").filter((line) => line !== "");
  expect(lines.some((line) => line.includes('"policyEvent"'))).toBe(true);
  const leaking = lines.filter(
    (line) =>
      secrets.some((secret) => line.includes(secret)) &&
      (JSON.parse(line) as { diagnosticEvent?: { prefix?: string } }).diagnosticEvent?.prefix !== "debug: ",
  );
  expect(leaking, "a secret in the event log").toEqual([]);
}
