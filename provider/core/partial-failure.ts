/**
 * The partial-failure format: how a failed step tells the engine that a handler nevertheless exists.
 *
 * The engine relies on it in one place: `grpcResponseFromError` in
 * `@pulumi/pulumi/cmd/dynamic-provider/index.js` (called from the dynamic provider's `create` and
 * `update` handlers). When the thrown error has an `id`, it packs `id`, `properties` and `reasons`
 * into a `pulumirpc.ErrorResourceInitFailed` detail of the gRPC status; the engine then records the
 * resource with that id and those properties, and fails the step with the message. Without an `id`
 * the step fails and the engine records nothing, which would orphan a handler that was made. What a
 * provider records beside a handler's outputs (the dynamic provider its source) it adds on the way out.
 */
import type { HandlerInputs, LiveHandler } from "./inputs";
import { outputsFrom } from "./inputs";

/** An error the dynamic-provider host turns into `ErrorResourceInitFailed` (see the module comment). */
interface PartialFailure extends Error {
  id: string;
  properties: Record<string, unknown>;
  reasons: string[];
}

/**
 * The one constructor of a partial failure: the step fails with `message`, and the engine records
 * handler `id` with `outputs`.
 */
export function partialFailure(
  message: string,
  id: number,
  outputs: Record<string, unknown>,
): PartialFailure {
  return Object.assign(new Error(message), { id: String(id), properties: outputs, reasons: [message] });
}

/** Whether an error is already a partial failure (it is passed on as it is). */
export function isPartialFailure(error: unknown): error is PartialFailure {
  return error instanceof Error && typeof (error as { id?: unknown }).id === "string";
}

/**
 * Runs a step after a handler exists; if the step fails, fails with a partial failure that records
 * the handler as `live` says, instead of forgetting it.
 */
export async function recordOnFailure<T>(
  live: LiveHandler,
  inputs: HandlerInputs,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isPartialFailure(error)) throw error;
    const message = `handler ${live.handlerId} exists, but ${error instanceof Error ? error.message : String(error)}`;
    throw partialFailure(message, live.handlerId, outputsFrom(inputs, live));
  }
}
