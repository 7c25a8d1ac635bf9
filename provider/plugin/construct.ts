/**
 * `Construct` of the `HandlerSet` component (docs/handler-sets.md#from-python-go-and-yaml): the set
 * read and checked as the TypeScript component checks it (`../handler-sets/entries`), then the
 * component and one `NotificationHandler` per entry, its children, registered with the engine's
 * resource monitor. A set with a problem fails the call with every problem listed, before anything
 * is registered. Patterns are relative to the plugin's working directory: the engine starts its
 * plugins in the program's folder.
 */
import { type ConstructRequest, ConstructResponse } from "@pulumi/pulumi/proto/provider_pb";
import { Alias } from "@pulumi/pulumi/proto/alias_pb";
import { RegisterResourceRequest, type RegisterResourceResponse } from "@pulumi/pulumi/proto/resource_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

import { describeProblems, type SetEntry } from "../handler-sets/format";
import { entryInputs, type HandlerSetSources, readHandlerSet, readSetSecrets } from "../handler-sets/entries";
import { UNKNOWN } from "../core/inputs";
import { HANDLER_RESOURCE_TOKEN, HANDLER_SET_TOKEN, PACKAGE_NAME } from "../tokens";
import { connectMonitor, type ResourceMonitor } from "./monitor";
import { decodeProperties, encodeProperties, secret } from "./properties";
import { InvalidRequestError } from "./unary";

/** Builds the component the request names: a `HandlerSet`, the only one this provider has. */
export async function construct(request: ConstructRequest): Promise<ConstructResponse> {
  if (request.getType() !== HANDLER_SET_TOKEN) {
    throw new InvalidRequestError(
      `unknown component type ${JSON.stringify(request.getType())}: this provider has ${HANDLER_SET_TOKEN} only`,
    );
  }
  const { values: inputs, secrets: secretInputs } = decodeProperties(request.getInputs());
  const reading = readHandlerSet(sourcesOf(inputs), process.cwd());
  if ("refused" in reading) throw new InvalidRequestError(reading.refused);
  if (reading.problems.length > 0) throw new Error(describeProblems(reading.problems));
  const config = stackConfig(request);
  const secrets = readSetSecrets(reading.entries, request.getProject(), (key) => config.get(key));
  if (secrets.problems.length > 0) throw new Error(describeProblems(secrets.problems));

  const shared: Record<string, unknown> = {};
  if (inputs.updateStrategy !== undefined) {
    shared.updateStrategy = secretInputs.has("updateStrategy")
      ? secret(inputs.updateStrategy)
      : inputs.updateStrategy;
  }
  const monitor = connectMonitor(request.getMonitorendpoint());
  try {
    const component = await monitor.register(componentRegistration(request));
    const urn = component.getUrn();
    const provider = request.getProvidersMap().get(PACKAGE_NAME) ?? "";
    const children = await registerAll(
      monitor,
      reading.entries.map((entry) => {
        const properties = {
          ...entryInputs(entry, (reference) => secret(secrets.values.get(reference))),
          ...shared,
        };
        return childRegistration(entry, encodeProperties(properties), urn, provider);
      }),
    );
    const handlerIds = Object.fromEntries(
      reading.entries.map((entry, i) => [
        entry.key,
        decodeProperties(children[i]!.getObject()).values.handlerId,
      ]),
    );
    const state = encodeProperties({ handlerIds });
    await monitor.registerOutputs(urn, state);
    const response = new ConstructResponse().setUrn(urn).setState(state);
    response
      .getStatedependenciesMap()
      .set(
        "handlerIds",
        new ConstructResponse.PropertyDependencies().setUrnsList(children.map((c) => c.getUrn())),
      );
    return response;
  } finally {
    monitor.close();
  }
}

/** The set's sources from the component's inputs, their shapes checked. */
function sourcesOf(inputs: Record<string, unknown>): HandlerSetSources {
  const { files, handlers } = inputs;
  // An unknown pattern (another resource's output, in a preview) cannot name files yet.
  if (files === UNKNOWN || handlers === UNKNOWN) {
    throw new InvalidRequestError("HandlerSet: files and handlers must be known when the program runs");
  }
  if (files !== undefined && !(Array.isArray(files) && files.every((f) => typeof f === "string"))) {
    throw new InvalidRequestError(
      "HandlerSet: files must be a list of strings (paths or globs of YAML files)",
    );
  }
  return { files, handlers };
}

/** The stack's config by full key (`namespace:name`); the engine may also spell it `namespace:config:name`. */
function stackConfig(request: ConstructRequest): Map<string, string> {
  const config = new Map<string, string>();
  request.getConfigMap().forEach((value, key) => config.set(key.replace(/^([^:]+):config:/, "$1:"), value));
  return config;
}

/** The component itself, with the options the program gave it. */
function componentRegistration(request: ConstructRequest): RegisterResourceRequest {
  const registration = new RegisterResourceRequest()
    .setType(request.getType())
    .setName(request.getName())
    .setParent(request.getParent())
    .setCustom(false)
    .setObject(new Struct())
    .setDependenciesList(request.getDependenciesList())
    .setAliasesList(request.getAliasesList())
    .setAliasspecs(true)
    .setDeletedwith(request.getDeletedwith())
    .setAcceptsecrets(true);
  const protect = request.getProtect();
  if (protect !== undefined) registration.setProtect(protect);
  const retain = request.getRetainondelete();
  if (retain !== undefined) registration.setRetainondelete(retain);
  request.getProvidersMap().forEach((ref, name) => registration.getProvidersMap().set(name, ref));
  return registration;
}

/** One entry's handler, a child of the component; a key renamed with `was` keeps its handler. */
function childRegistration(
  entry: SetEntry,
  properties: Struct,
  parent: string,
  provider: string,
): RegisterResourceRequest {
  const registration = new RegisterResourceRequest()
    .setType(HANDLER_RESOURCE_TOKEN)
    .setName(entry.key)
    .setParent(parent)
    .setCustom(true)
    .setObject(properties)
    .setProvider(provider)
    .setAcceptsecrets(true)
    .setAliasspecs(true);
  if (entry.was !== undefined) {
    // A spec with no parent names the child's own parent.
    registration.setAliasesList([new Alias().setSpec(new Alias.Spec().setName(entry.was))]);
  }
  return registration;
}

/**
 * Registers every child at once and waits for all of them, so none is cut off when another fails;
 * the first failure is the call's (the engine reports each child's own error too).
 */
async function registerAll(
  monitor: ResourceMonitor,
  registrations: RegisterResourceRequest[],
): Promise<RegisterResourceResponse[]> {
  const settled = await Promise.allSettled(registrations.map((r) => monitor.register(r)));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<RegisterResourceResponse>).value);
}
