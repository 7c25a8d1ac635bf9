/**
 * The plugin's functions (`Invoke`): `getNotificationHandler` and `getNotificationHandlers`, through
 * the queries the program's lookups run (`../core/handler-queries`), on the provider's configured account.
 * `settings` may hold credentials, so each handler's comes back as a secret.
 */
import { CheckFailure, type InvokeRequest, InvokeResponse } from "@pulumi/pulumi/proto/provider_pb";

import type { ProviderContext } from "../core/context";
import { findHandler, findHandlers } from "../core/handler-queries";
import type { CheckFailure as Failure, LiveHandler } from "../core/inputs";
import { GET_HANDLERS_TOKEN, GET_HANDLER_TOKEN } from "../tokens";
import { filterArgs, nameArgs } from "./invoke-args";
import { decodeProperties, encodeProperties, secret } from "./properties";
import { InvalidRequestError } from "./unary";

/** Runs the function the request names. */
export async function invoke(ctx: ProviderContext, request: InvokeRequest): Promise<InvokeResponse> {
  const args = decodeProperties(request.getArgs()).values;
  const token = request.getTok();
  if (token === GET_HANDLER_TOKEN) {
    const checked = nameArgs(args);
    if (!checked.ok) return failed(checked.failures);
    const found = await findHandler(ctx.site().api(), checked.value);
    return new InvokeResponse().setReturn(encodeProperties(shown(found)));
  }
  if (token === GET_HANDLERS_TOKEN) {
    const checked = filterArgs(args);
    if (!checked.ok) return failed(checked.failures);
    const found = await findHandlers(ctx.site().api(), checked.value);
    return new InvokeResponse().setReturn(encodeProperties({ handlers: found.map(shown) }));
  }
  throw new InvalidRequestError(
    `unknown function ${JSON.stringify(token)}: this provider has ${GET_HANDLER_TOKEN} and ${GET_HANDLERS_TOKEN}`,
  );
}

/** A found handler as a function returns it: `settings` secret. */
function shown(handler: LiveHandler): Record<string, unknown> {
  return { ...handler, settings: secret(handler.settings) };
}

function failed(failures: Failure[]): InvokeResponse {
  return new InvokeResponse().setFailuresList(
    failures.map((f) => new CheckFailure().setProperty(f.property).setReason(f.reason)),
  );
}
