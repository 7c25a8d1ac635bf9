/** How a create recognizes the resource a diff saw: the engine gives the dynamic provider's create no URN. */
import { fieldByName } from "../../sdk/client/domain/catalog";
import { type HandlerInputs, desiredFrom } from "./inputs";
import { type ResourceOptions, ignoredBy } from "./resource-options";

/**
 * How a create finds what the diff of the same resource saw: by its URN where the call has one (the
 * plugin), else by its name (when the dynamic provider's resource passed options) and its inputs less
 * what the program leaves to others.
 */
export function replacementKey(inputs: HandlerInputs, options: ResourceOptions): string {
  if (options.urn !== undefined) return options.urn;
  const key = inputsKey(inputs, ignoredBy(options));
  return options.resource === undefined ? key : `${options.resource}\n${key}`;
}

/**
 * Identifies a resource's inputs across diff and create, less the properties the program leaves to
 * others: the engine puts their recorded values into the diff's inputs, but not into a replacement's.
 */
function inputsKey(inputs: HandlerInputs, ignored: (property: string) => boolean): string {
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
