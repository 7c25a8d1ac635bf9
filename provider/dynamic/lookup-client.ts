/**
 * The client a lookup reads with: the lookup's own connection, else the program's configuration, and
 * the timeout and retries the provider would use, read by the provider's own `readSettings`.
 */
import * as pulumi from "@pulumi/pulumi";

import { NotificationHandlersClient } from "../../sdk/client/client";
import type { Environment } from "../../sdk/client/domain/settings";
import { type ConfigGetter, clientOptions, readSettings, requireConnection } from "../core/config";

/**
 * Where lookups connect; defaults to the provider's stack config, then the environment. A resource's
 * connection (`ConnectionArgs`) fits the Output forms' `LookupOutputOptions` as it is.
 */
export interface LookupOptions {
  baseUrl?: string;
  apiKey?: string;
}

/** The program's Pulumi configuration, as lookups read it by default. */
const programConfig: ConfigGetter = (key) => pulumi.runtime.getConfig(key);

/**
 * A new client for a lookup (the caller closes it); `get` and `env` are the program's configuration and
 * environment unless a test passes its own.
 */
export function lookupClient(
  connection: LookupOptions,
  get: ConfigGetter = programConfig,
  env: Environment = process.env,
): NotificationHandlersClient {
  const configured = readSettings(get, env);
  const chosen = requireConnection({
    baseUrl: connection.baseUrl ?? configured.baseUrl,
    apiKey: connection.apiKey ?? configured.apiKey,
  });
  return new NotificationHandlersClient(clientOptions(chosen, configured));
}
