/** How a create recognizes the resource a diff decided to replace: the engine gives create no URN. */
import { type HandlerInputs, desiredFrom } from "./inputs";

/** Identifies a resource's inputs across diff and create. */
export function inputsKey(inputs: HandlerInputs): string {
  return JSON.stringify([desiredFrom(inputs), inputs.adopt ?? null]);
}
