/**
 * Which of the resource's properties are kept secret, for both faces: the resource marks them (the
 * dynamic provider), the plugin wraps them in what it sends back to the engine.
 */
import { ALL_FIELDS, fieldsOf, isHandlerType } from "../sdk/client/catalog";
import { CONNECTION_PROPERTY } from "./connection";

/** The catalog's credential fields (webhook URLs, tokens, X keys). */
export const SECRET_FIELD_PROPERTIES: readonly string[] = ALL_FIELDS.filter((f) => f.secret).map(
  (f) => f.property,
);

/** Inputs kept secret: the credential fields and the connection (it holds a key). */
export const SECRET_INPUTS: readonly string[] = [...SECRET_FIELD_PROPERTIES, CONNECTION_PROPERTY];

/** Outputs kept secret: the secret inputs and `settings`, which holds the credential fields again. */
export const SECRET_OUTPUTS: readonly string[] = ["settings", ...SECRET_INPUTS];

/**
 * The outputs the plugin keeps secret for a handler of `type`: `settings` only when the type has a
 * credential field, or is not known yet. Email addresses and phone numbers are no secrets, and stay
 * readable as their inputs are; the engine then has no secret to keep for such a handler. (The
 * dynamic face marks `settings` whatever the type: a resource declares its secret outputs up front.)
 */
export function secretOutputsOf(type: unknown): readonly string[] {
  const withoutCredentials = isHandlerType(type) && !fieldsOf(type).some((f) => f.secret);
  return withoutCredentials ? SECRET_INPUTS : SECRET_OUTPUTS;
}
