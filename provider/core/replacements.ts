/** How a create recognizes the resource a diff saw: the engine gives the dynamic provider's create no URN. */
import { fieldByName } from "../../sdk/client/catalog";
import { type HandlerInputs, desiredFrom } from "./inputs";

/**
 * Identifies a resource's inputs across diff and create, less the properties the program leaves to
 * others: the engine puts their recorded values into the diff's inputs, but not into a replacement's.
 */
export function inputsKey(
  inputs: HandlerInputs,
  ignored: (property: string) => boolean = () => false,
): string {
  const { type, name, isEnabled, fields } = desiredFrom(inputs);
  const kept = Object.entries(fields).filter(([field]) => !ignored(fieldByName(field)?.property ?? field));
  return JSON.stringify([
    type,
    ignored("name") ? null : name,
    ignored("isEnabled") ? null : isEnabled,
    kept,
    inputs.adopt ?? null,
  ]);
}
