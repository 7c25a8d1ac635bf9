/**
 * Which of the resource's properties are kept secret, for both providers: the resource marks them (the
 * dynamic provider), the plugin wraps them in what it sends back to the engine.
 */
import { ALL_FIELDS, HANDLER_TYPE_NAMES, fieldsOf, isHandlerType } from "../../sdk/client/domain/catalog";
import { APPLIED_KEY } from "./applied-record";
import { CONNECTION_PROPERTY } from "./connection";

/** The catalog's credential fields (webhook URLs, tokens, X keys). */
export const SECRET_FIELD_PROPERTIES: readonly string[] = ALL_FIELDS.filter((f) => f.secret).map(
  (f) => f.property,
);

/** Inputs kept secret: the credential fields and the connection (it holds a key). */
export const SECRET_INPUTS: readonly string[] = [...SECRET_FIELD_PROPERTIES, CONNECTION_PROPERTY];

/**
 * Outputs kept secret: the secret inputs, `settings`, which holds the credential fields again, and the
 * record of the last deploy, whose digests of them could confirm a guess.
 */
export const SECRET_OUTPUTS: readonly string[] = ["settings", APPLIED_KEY, ...SECRET_INPUTS];

/**
 * Each type's secret outputs: its credential fields and the connection, and `settings` and the record
 * of the last deploy with them.
 */
const SECRET_OUTPUTS_BY_TYPE = new Map(
  HANDLER_TYPE_NAMES.map((type) => {
    const credentials = fieldsOf(type)
      .filter((f) => f.secret)
      .map((f) => f.property);
    const settings = credentials.length > 0 ? ["settings", APPLIED_KEY] : [];
    return [type, [...settings, ...credentials, CONNECTION_PROPERTY] as readonly string[]] as const;
  }),
);

/**
 * The outputs kept secret for a handler of `type`, by both providers: `settings` only when the type has a
 * credential field, since email addresses and phone numbers are no secrets and stay readable as
 * their inputs are. A type not known yet (an unresolved output) keeps every one secret. The engine
 * rewrites the whole state after each operation, so names and ciphertexts it need not hold cost time.
 */
export function secretOutputsOf(type: unknown): readonly string[] {
  return (isHandlerType(type) ? SECRET_OUTPUTS_BY_TYPE.get(type) : undefined) ?? SECRET_OUTPUTS;
}
