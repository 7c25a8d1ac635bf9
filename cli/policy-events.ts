/**
 * The policy violations of a preview, from the event log `pulumi preview --event-log FILE` writes (one
 * JSON event a line): the pinned CLI's `preview --json` carries none. Only the policy events are read;
 * the log's other events, the SDK's debug messages among them, may hold a secret and are never shown.
 */
import { markdownText } from "./markdown";

/** One violation a policy pack reported. */
export interface PolicyViolation {
  enforcementLevel: string;
  policyName: string;
  policyPackName: string;
  resourceUrn: string;
  /** The violation's own message, without the policy's description that the engine puts first. */
  message: string;
}

interface PolicyEvent {
  resourceUrn?: string;
  message?: string;
  policyName?: string;
  policyPackName?: string;
  enforcementLevel?: string;
}

/** The violations in an event log's text; a line that is no JSON event fails, naming its number. */
export function policyViolations(log: string, source: string): PolicyViolation[] {
  const found: PolicyViolation[] = [];
  const seen = new Set<string>();
  log.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let event: { policyEvent?: PolicyEvent };
    try {
      event = JSON.parse(line) as { policyEvent?: PolicyEvent };
    } catch {
      throw new Error(`${source}:${index + 1} is not an event of \`pulumi preview --event-log\``);
    }
    const policy = event.policyEvent;
    if (policy === undefined) return;
    const [, ...own] = (policy.message ?? "").trim().split("\n");
    const violation: PolicyViolation = {
      enforcementLevel: policy.enforcementLevel ?? "",
      policyName: policy.policyName ?? "",
      policyPackName: policy.policyPackName ?? "",
      resourceUrn: policy.resourceUrn ?? "",
      message: (own.length > 0 ? own : [policy.message ?? ""]).join(" ").trim(),
    };
    const key = JSON.stringify(violation);
    if (!seen.has(key)) found.push(violation);
    seen.add(key);
  });
  return found;
}

/** The Markdown lines of the violations: mandatory ones first, then by pack, rule and resource. */
export function violationLines(violations: readonly PolicyViolation[]): string[] {
  if (violations.length === 0) return [];
  const order = (v: PolicyViolation): string =>
    `${v.enforcementLevel === "mandatory" ? 0 : 1} ${v.policyPackName} ${v.policyName} ${v.resourceUrn}`;
  const sorted = [...violations].sort((a, b) => order(a).localeCompare(order(b)));
  const mandatory = violations.filter((v) => v.enforcementLevel === "mandatory").length;
  const resource = (urn: string): string =>
    urn === "" ? "the stack" : `\`${urn.split("::").at(-1) ?? urn}\``;
  return [
    `**Policy violations**: ${mandatory} mandatory, ${violations.length - mandatory} advisory.`,
    "",
    "| level | policy | resource | violation |",
    "| --- | --- | --- | --- |",
    ...sorted.map(
      (v) =>
        `| ${markdownText(v.enforcementLevel)} | ${markdownText(`${v.policyPackName}/${v.policyName}`)} | ` +
        `${resource(v.resourceUrn)} | ${markdownText(v.message)} |`,
    ),
  ];
}
