/**
 * The outputs a preview shows for a create or an update, which the plugin answers without writing:
 * the inputs as the program gave them, and what only the API can tell (ids, dates, the stored
 * settings) unknown, or kept from the recorded outputs where an update does not change it.
 */
import { type HandlerInputs, UNKNOWN } from "../core/inputs";
import type { PropertyValues } from "./properties";

/** The previewed outputs of `inputs`; `recorded` are the resource's outputs before an update. */
export function previewOutputs(inputs: HandlerInputs, recorded: PropertyValues = {}): PropertyValues {
  return {
    ...inputs,
    isEnabled: inputs.isEnabled ?? true,
    handlerId: recorded.handlerId ?? UNKNOWN,
    datetime: recorded.datetime ?? UNKNOWN,
    pendingConfirmation: UNKNOWN,
    settings: UNKNOWN,
    lastDatetime: UNKNOWN,
  };
}
