/**
 * The contract between a `NotificationHandler`'s state and the code that reads it: which properties
 * the recorded `__provider` source hands to which provider. A state names the contract it was written
 * under; every release keeps reading every contract an earlier release wrote (docs/upgrading.md).
 *
 * Contract 1 is what 0.1.0 recorded: a source that takes `provider` from `./provider/runtime`, with no
 * contract named. Contract 2 has the same handler properties; its source names the contract and the
 * version that wrote it (which the runtime's message names when it does not read the contract), and
 * finds the package from the project's folder or a recorded folder.
 */

/** The reserved property that holds the provider's source (`./provider-source`). */
export const PROVIDER_KEY = "__provider";

/** The contract new states are written under. */
export const STATE_CONTRACT = 2;

/** The contracts this release reads, oldest first. */
export const READ_CONTRACTS: readonly number[] = [1, 2];
