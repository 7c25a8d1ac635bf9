/**
 * The resource's calls through the plugin: Check, Diff, Create, Read, Update and Delete of
 * `notification-handlers:index:NotificationHandler`. Each decodes the engine's message, calls the
 * same operation the dynamic provider calls (`../core/operations`), and encodes the answer, with the
 * credential fields, the connection and `settings` wrapped as secrets.
 */
import {
  CheckFailure,
  type CheckRequest,
  CheckResponse,
  type CreateRequest,
  CreateResponse,
  type DeleteRequest,
  type DiffRequest,
  DiffResponse,
  PropertyDiff,
  type ReadRequest,
  ReadResponse,
  type UpdateRequest,
  UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

import type { ProviderContext } from "../core/context";
import { inputsFromOutputs } from "../core/inputs";
import type { ResourceLog } from "./engine-log";
import * as operations from "../core/operations";
import type { ResourceOptions } from "../core/resource-options";
import { SECRET_INPUTS, secretOutputsOf } from "../core/secret-properties";
import { decodeProperties, encodeProperties } from "./properties";
import { previewOutputs } from "./preview";
import { type NamedRequest, nameOf, requireHandlerType } from "./urn";

/**
 * Checks the inputs; a missing name is the resource's name, as the TypeScript resource makes it. Inputs
 * that need neither go back as the engine sent them, which spares re-encoding every resource of a run.
 * The note of a takeover reaches the engine with the resource's URN.
 */
export async function check(
  ctx: ProviderContext,
  request: CheckRequest,
  log: ResourceLog,
): Promise<CheckResponse> {
  requireHandlerType(request);
  const news = request.getNews();
  const { values, secrets } = decodeProperties(news);
  const named = values.name !== undefined;
  values.name ??= nameOf(request);
  const olds = decodeProperties(request.getOlds()).values;
  const notes: string[] = [];
  const { inputs, failures } = await operations.check(ctx, values, olds, (note) => notes.push(note));
  await log(request.getUrn(), notes);
  const unmarked = SECRET_INPUTS.some((p) => inputs[p] !== undefined && !secrets.has(p));
  return new CheckResponse()
    .setInputs(
      named && !unmarked && inputs === values && news !== undefined
        ? news
        : encodeProperties(inputs, [...SECRET_INPUTS, ...secrets]),
    )
    .setFailuresList(failures.map((f) => new CheckFailure().setProperty(f.property).setReason(f.reason)));
}

/**
 * Compares the new inputs with the live handler, leaving what the program's `ignoreChanges` lists to
 * whoever edits it. Each property the operation found changed is named in the detailed diff (drift
 * included), so the engine's `replaceOnChanges` matches them. Its notes
 * (a drifted field's live and desired values, a handler gone) reach the engine with the resource's
 * URN before the answer does, so the preview shows them under the resource.
 */
export async function diff(
  ctx: ProviderContext,
  request: DiffRequest,
  log: ResourceLog,
): Promise<DiffResponse> {
  requireHandlerType(request);
  const olds = decodeProperties(request.getOlds()).values;
  const news = decodeProperties(request.getNews()).values;
  const notes: string[] = [];
  const options = { ...resourceOf(request), ignoreChanges: request.getIgnorechangesList() };
  const result = await operations.diff(ctx, request.getId(), olds, news, (note) => notes.push(note), options);
  await log(request.getUrn(), notes);
  const { changed } = result;
  const replaces = result.replaces ?? [];
  const response = new DiffResponse()
    .setChanges(changed.length > 0 ? DiffResponse.DiffChanges.DIFF_SOME : DiffResponse.DiffChanges.DIFF_NONE)
    .setReplacesList(replaces)
    .setDeletebeforereplace(result.deleteBeforeReplace === true)
    .setDiffsList(changed)
    .setHasdetaileddiff(true);
  for (const property of changed) {
    const added = olds[property] === undefined && news[property] !== undefined;
    const replaced = replaces.includes(property);
    const kind = added
      ? replaced
        ? PropertyDiff.Kind.ADD_REPLACE
        : PropertyDiff.Kind.ADD
      : replaced
        ? PropertyDiff.Kind.UPDATE_REPLACE
        : PropertyDiff.Kind.UPDATE;
    response.getDetaileddiffMap().set(property, new PropertyDiff().setKind(kind));
  }
  return response;
}

/** Creates the handler; a preview writes nothing and shows what only the API can tell as unknown. */
export async function create(ctx: ProviderContext, request: CreateRequest): Promise<CreateResponse> {
  requireHandlerType(request);
  const { values, secrets } = decodeProperties(request.getProperties());
  const secretOutputs = [...secretOutputsOf(values.type), ...secrets];
  if (request.getPreview()) {
    return new CreateResponse()
      .setId("")
      .setProperties(encodeProperties(previewOutputs(values), secretOutputs));
  }
  const result = await operations.create(ctx, values, timed(request));
  return new CreateResponse().setId(result.id).setProperties(encodeProperties(result.outs, secretOutputs));
}

/**
 * Reads the live handler. An import sends only the id and the URN: the handler is read through the
 * provider's configuration, and its inputs are made from what the API holds. The recorded inputs
 * keep the credential fields, as secrets (the dynamic provider leaves them out, as it cannot mark
 * them), so the next diff compares them.
 */
export async function read(ctx: ProviderContext, request: ReadRequest): Promise<ReadResponse> {
  requireHandlerType(request);
  const recorded = decodeProperties(request.getProperties());
  const imported = Object.keys(recorded.values).length === 0;
  const { id, props } = await operations.read(ctx, request.getId(), imported ? undefined : recorded.values);
  if (id === undefined || props === undefined) return new ReadResponse(); // gone
  const inputs = inputsFromOutputs(props);
  if (imported) for (const property of SECRET_INPUTS) delete inputs[property];
  return new ReadResponse()
    .setId(id)
    .setProperties(encodeProperties(props, [...secretOutputsOf(props.type), ...recorded.secrets]))
    .setInputs(encodeProperties(inputs, [...SECRET_INPUTS, ...recorded.secrets]));
}

/** Brings the handler to the new inputs in place; a preview writes nothing. */
export async function update(ctx: ProviderContext, request: UpdateRequest): Promise<UpdateResponse> {
  requireHandlerType(request);
  const olds = decodeProperties(request.getOlds()).values;
  const { values: news, secrets } = decodeProperties(request.getNews());
  const secretOutputs = [...secretOutputsOf(news.type), ...secrets];
  if (request.getPreview()) {
    return new UpdateResponse().setProperties(encodeProperties(previewOutputs(news, olds), secretOutputs));
  }
  const result = await operations.update(ctx, request.getId(), olds, news, {
    ...timed(request),
    ignoreChanges: request.getIgnorechangesList(),
  });
  return new UpdateResponse().setProperties(encodeProperties(result.outs, secretOutputs));
}

/** Deletes the handler, through the connection its outputs record. */
export async function remove(ctx: ProviderContext, request: DeleteRequest): Promise<Empty> {
  requireHandlerType(request);
  const props = decodeProperties(request.getProperties()).values;
  await operations.remove(ctx, request.getId(), props, timed(request));
  return new Empty();
}

/** Which resource a request is of: its name, for messages, and its URN. */
function resourceOf(request: NamedRequest): ResourceOptions {
  return { resource: nameOf(request), urn: request.getUrn() };
}

/** A write's resource and its custom timeout, as the engine sends them. */
function timed(request: CreateRequest | UpdateRequest | DeleteRequest): ResourceOptions {
  return { ...resourceOf(request), timeoutSeconds: request.getTimeout() };
}
