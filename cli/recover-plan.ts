/**
 * What `recover` does with each pending operation of an interrupted deploy, decided from the state and
 * the accounts' handlers alone (no I/O). The rules (docs/interrupted-deploys.md#what-recover-does):
 *
 * - A pending create of a handler resource takes the handler it made when exactly one handler fits:
 *   the same type, name, enabled flag and settings as the pending inputs (through the cleaning deployed
 *   instances apply, as the provider's diff compares), made at or after `since` (the interrupted
 *   update's start), on the account the resource uses, and claimed by no resource of the state.
 * - None fits: the create made nothing; the pending operation is cleared and the next `pulumi up`
 *   creates the handler.
 * - More fit than there are pending creates of those values: refused, nothing guessed. Pending creates
 *   of identical values (twins) share their candidates: any assignment gives the same state.
 * - A pending update or delete of a handler resource is dropped: the resource is still in the state,
 *   and the next run's diff or delete repeats it (a delete of a missing handler succeeds).
 * - A pending operation of any other resource is refused: this command does not know its provider.
 */
import { desiredFrom, differences, toLive } from "../provider/for-cli";
import type { NotificationHandlerRecord as ApiHandler } from "../sdk/client/domain/resources/handler-parsing";
import {
  type Deployment,
  type PendingOperation,
  type StateResource,
  isHandlerResource,
  plainInputs,
} from "./state-json";

/** What `recover` does with one pending operation. */
export type Decision =
  | { kind: "import"; pending: PendingOperation; handler: ApiHandler }
  | { kind: "clear"; pending: PendingOperation }
  | { kind: "drop"; pending: PendingOperation }
  | { kind: "refuse"; pending: PendingOperation; reason: string; candidates: number[] };

/** What the plan is made from. */
export interface RecoveryInput {
  deployment: Deployment;
  /** The account a handler resource uses, as a key that tells accounts apart. */
  accountOf: (resource: StateResource) => string;
  /** Every handler of each account, by the same key. */
  handlers: ReadonlyMap<string, readonly ApiHandler[]>;
  /** No handler made before this instant is taken (the interrupted update's start). */
  since: Date;
}

/** The instant of an API datetime (`Y-m-d H:i:s`, UTC: docs/api.md#datetimes). */
export function apiInstant(datetime: string): Date {
  return new Date(`${datetime.replace(" ", "T")}Z`);
}

/** One decision per pending operation, in the state's order. */
export function planRecovery(input: RecoveryInput): Decision[] {
  const { deployment } = input;
  const claimed = claimedIds(input);
  // The API's datetimes have whole seconds: a handler made in the update's first second counts.
  const since = Math.floor(input.since.getTime() / 1000) * 1000;
  const decisions = new Map<PendingOperation, Decision>();
  const groups = new Map<string, { pendings: PendingOperation[]; candidates: ApiHandler[] }>();

  for (const pending of deployment.pending_operations ?? []) {
    if (!isHandlerResource(pending.resource)) {
      decisions.set(pending, {
        kind: "refuse",
        pending,
        reason: `not a notification handler (${pending.resource.type}): resolve it with \`pulumi refresh\` first`,
        candidates: [],
      });
      continue;
    }
    if (pending.type !== "creating") {
      decisions.set(pending, { kind: "drop", pending });
      continue;
    }
    const account = input.accountOf(pending.resource);
    const desired = desiredFrom(plainInputs(pending.resource));
    const candidates = (input.handlers.get(account) ?? []).filter(
      (h) =>
        !claimed.get(account)?.has(h.id) &&
        apiInstant(h.datetime).getTime() >= since &&
        differences(desired, toLive(h)).length === 0,
    );
    const key = `${account}\n${candidates.map((h) => h.id).join(",")}`;
    const group = groups.get(key) ?? { pendings: [], candidates };
    group.pendings.push(pending);
    groups.set(key, group);
  }

  // A handler that fits two groups of different values cannot be given to either without a guess.
  const seen = new Map<number, number>();
  for (const { candidates } of groups.values())
    for (const h of candidates) seen.set(h.id, (seen.get(h.id) ?? 0) + 1);
  for (const { pendings, candidates } of groups.values()) {
    const ids = candidates.map((h) => h.id).sort((a, b) => a - b);
    const shared = ids.some((id) => (seen.get(id) ?? 0) > 1);
    if (candidates.length > pendings.length || shared) {
      const reason = shared
        ? "a handler that fits it also fits another pending create of other values"
        : `${candidates.length} handlers fit it (same values, made since the update began, in no resource)`;
      for (const pending of pendings)
        decisions.set(pending, { kind: "refuse", pending, reason, candidates: ids });
      continue;
    }
    const sorted = [...candidates].sort((a, b) => a.id - b.id);
    pendings.forEach((pending, i) => {
      const handler = sorted[i];
      decisions.set(
        pending,
        handler === undefined ? { kind: "clear", pending } : { kind: "import", pending, handler },
      );
    });
  }
  return (deployment.pending_operations ?? []).map((p) => decisions.get(p)!);
}

/** The handler ids each account's resources of the state hold (those pending deletion included). */
function claimedIds(input: RecoveryInput): Map<string, Set<number>> {
  const claimed = new Map<string, Set<number>>();
  for (const resource of input.deployment.resources ?? []) {
    if (!isHandlerResource(resource) || resource.id === undefined) continue;
    const account = input.accountOf(resource);
    const ids = claimed.get(account) ?? new Set<number>();
    ids.add(Number(resource.id));
    claimed.set(account, ids);
  }
  return claimed;
}
