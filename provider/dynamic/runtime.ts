/**
 * The dynamic provider's entry point. It runs only inside Pulumi's dynamic-provider process, loaded
 * by package name from the module a state records (`./provider-source`); it holds the process's one
 * {@link ProviderContext} and hands each call of the engine to the core's `operations`. Its exports are a
 * contract with every state ever written (docs/upgrading.md): `provider` for the states of 0.1.0,
 * `contracts` and `forContract` for later ones; none of them may go. The package exports it as
 * `./provider/runtime`, the name every state records (`RUNTIME_MODULE`).
 */
import "../core/compile-cache";

import type * as pulumi from "@pulumi/pulumi";

import { readSettings } from "../core/config";
import { ProviderContext } from "../core/context";
import type { HandlerInputs, HandlerOutputs } from "../core/inputs";
import * as operations from "../core/operations";
import { isPartialFailure } from "../core/partial-failure";
import { keepingOptions, optionsIn } from "./passed-options";
import { NPM_PACKAGE } from "../tokens";
import { PROVIDER_KEY, READ_CONTRACTS } from "./state-contract";

const context = new ProviderContext();

/**
 * Runs a create or update, its outputs keeping the passed options; a partial failure records the
 * handler as the host records a success, with the provider's source (the host adds it to a success alone).
 */
async function keepingOptionsOf<R extends { outs: HandlerOutputs }>(
  inputs: HandlerInputs,
  operation: () => Promise<R>,
): Promise<R> {
  try {
    const result = await operation();
    return { ...result, outs: keepingOptions(result.outs, inputs) };
  } catch (error) {
    if (isPartialFailure(error)) {
      const recorded = { ...error.properties, [PROVIDER_KEY]: inputs[PROVIDER_KEY] };
      error.properties = keepingOptions(recorded, inputs);
    }
    throw error;
  }
}

/** The provider object the engine calls: what states of contract 1 (0.1.0) take by name. */
export const provider: pulumi.dynamic.ResourceProvider<HandlerInputs, HandlerOutputs> = {
  /** Reads the provider configuration, falling back to the environment. */
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    // A bad value throws inside the executor, which rejects.
    return new Promise((resolve) => {
      context.settings = readSettings((key) => req.config.get(key));
      resolve();
    });
  },

  /** Checks inputs against the catalog before any API call; a takeover notes what it will write. */
  check(olds: HandlerInputs, news: HandlerInputs): Promise<pulumi.dynamic.CheckResult> {
    return operations.check(context, news, olds, context.note, optionsIn(news));
  },

  /**
   * Compares the desired inputs with the handler's live state, so drift shows up without `--refresh`;
   * the options the resource passed say what the program leaves to others and what replaces.
   */
  diff(id: pulumi.ID, olds: HandlerInputs, news: HandlerInputs): Promise<pulumi.dynamic.DiffResult> {
    return operations.diff(context, id, olds, news, context.note, optionsIn(news));
  },

  /** Creates the handler (or takes one over with `adopt`), verified by reading it back. */
  create(inputs: HandlerInputs): Promise<pulumi.dynamic.CreateResult> {
    return keepingOptionsOf(inputs, () => operations.create(context, inputs, optionsIn(inputs, "create")));
  },

  /** Reads the live handler for `pulumi refresh` and `NotificationHandler.get`; gone means no id. */
  async read(id: pulumi.ID, props?: HandlerOutputs | HandlerInputs): Promise<pulumi.dynamic.ReadResult> {
    const result = await operations.read(context, id, props);
    if (result.props === undefined || result.inputs === undefined || props === undefined) return result;
    return {
      ...result,
      props: keepingOptions(result.props, props),
      inputs: keepingOptions(result.inputs, props),
    };
  },

  /** Brings the handler to the new inputs in place. */
  update(
    id: pulumi.ID,
    olds: HandlerOutputs | HandlerInputs,
    news: HandlerInputs,
  ): Promise<pulumi.dynamic.UpdateResult> {
    return keepingOptionsOf(news, () =>
      operations.update(context, id, olds, news, optionsIn(news, "update")),
    );
  },

  /** Deletes the handler. */
  delete(id: pulumi.ID, props: HandlerOutputs): Promise<void> {
    return operations.remove(context, id, props, optionsIn(props, "delete"));
  },
};

/** The state contracts this package reads; a state's source checks its own is among them. */
export const contracts: readonly number[] = READ_CONTRACTS;

/**
 * The provider for the states of `contract`, which the package's version `writer` wrote. Contracts 1
 * and 2 record the same handler properties, so both get {@link provider}; a later contract that
 * changes them adapts the older states here.
 */
export function forContract(contract: number, writer = "a later version"): typeof provider {
  if (!contracts.includes(contract))
    throw new Error(
      `this state was written by ${NPM_PACKAGE} ${writer} under state contract ${contract}; the installed ` +
        `${NPM_PACKAGE} reads contract ${contracts.join(", ")}: run \`npm install ${NPM_PACKAGE}@${writer}\` ` +
        "(the version that wrote this state, or a later one)",
    );
  return provider;
}
