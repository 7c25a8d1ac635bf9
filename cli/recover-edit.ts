/**
 * The state `recover` writes back: each pending create that made a handler becomes the resource a
 * finished create would have recorded, and the pending operations it resolved are gone. No I/O.
 */
import { outputsFrom, PROVIDER_KEY, SECRET_OUTPUTS, toLive } from "../provider/for-cli";
import type { Decision } from "./recover-plan";
import { type ExportedState, type StateResource, plainInputs, secretValue } from "./state-json";

/**
 * The resource a create that made `handler` records: the pending inputs as they are, and the outputs
 * the provider returns (`outputsFrom`), its secret ones marked secret, `__provider` kept for the
 * dynamic provider.
 */
export function createdResource(
  pending: StateResource,
  handler: Decision & { kind: "import" },
): StateResource {
  const inputs = plainInputs(pending);
  const outputs: Record<string, unknown> = outputsFrom(inputs, toLive(handler.handler));
  if (typeof inputs[PROVIDER_KEY] === "string") outputs[PROVIDER_KEY] = inputs[PROVIDER_KEY];
  for (const property of SECRET_OUTPUTS)
    if (outputs[property] !== undefined) outputs[property] = secretValue(outputs[property]);
  const now = new Date().toISOString();
  return {
    ...pending,
    id: String(handler.handler.id),
    outputs,
    created: now,
    modified: now,
  };
}

/**
 * The state after the decisions (which must hold no refusal): resources added for the imports, every
 * pending operation gone. A create that replaced a resource (create before delete) leaves the old one
 * marked for deletion, as the engine does, so the next `pulumi up` deletes its handler.
 */
export function applyRecovery(state: ExportedState, decisions: readonly Decision[]): ExportedState {
  if (decisions.some((d) => d.kind === "refuse")) throw new Error("a plan with a refusal is never applied");
  const resources = [...(state.deployment.resources ?? [])];
  for (const decision of decisions) {
    if (decision.kind !== "import") continue;
    const created = createdResource(decision.pending.resource, decision);
    const old = resources.findIndex((r) => r.urn === created.urn && r.delete !== true);
    if (old === -1) {
      resources.push(created);
      continue;
    }
    resources[old] = { ...resources[old]!, delete: true };
    resources.splice(old + 1, 0, created);
  }
  const { pending_operations: _resolved, ...deployment } = state.deployment;
  return { ...state, deployment: { ...deployment, resources } };
}
