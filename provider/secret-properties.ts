/**
 * Which of the resource's properties are kept secret, for both faces: the resource marks them (the
 * dynamic provider), the plugin wraps them in what it sends back to the engine.
 */
import { ALL_FIELDS } from "../sdk/client/catalog";
import { CONNECTION_PROPERTY } from "./connection";

/** The catalog's credential fields (webhook URLs, tokens, X keys). */
export const SECRET_FIELD_PROPERTIES: readonly string[] = ALL_FIELDS.filter((f) => f.secret).map(
  (f) => f.property,
);

/** Inputs kept secret: the credential fields and the connection (it holds a key). */
export const SECRET_INPUTS: readonly string[] = [...SECRET_FIELD_PROPERTIES, CONNECTION_PROPERTY];

/** Outputs kept secret: the secret inputs and `settings`, which holds the credential fields again. */
export const SECRET_OUTPUTS: readonly string[] = ["settings", ...SECRET_INPUTS];
