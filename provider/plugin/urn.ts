/**
 * What a request says about its resource: the type token and the name, from the request's own
 * fields or, where an older engine leaves them empty, from the URN
 * (`urn:pulumi:<stack>::<project>::[<parent type>$]<type>::<name>`).
 */
import { HANDLER_RESOURCE_TOKEN } from "../tokens";
import { InvalidRequestError } from "./unary";

/** The parts of a resource request that name the resource. */
export interface NamedRequest {
  getUrn(): string;
  getType(): string;
  getName(): string;
}

/** The request's type token. */
export function typeOf(request: NamedRequest): string {
  if (request.getType() !== "") return request.getType();
  const qualified = request.getUrn().split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/** The request's resource name. */
export function nameOf(request: NamedRequest): string {
  if (request.getName() !== "") return request.getName();
  return request.getUrn().split("::").slice(3).join("::");
}

/** Fails, naming the token, for any resource type but the notification handler. */
export function requireHandlerType(request: NamedRequest): void {
  const type = typeOf(request);
  if (type !== HANDLER_RESOURCE_TOKEN) {
    throw new InvalidRequestError(
      `unknown resource type ${JSON.stringify(type)}: this provider manages ${HANDLER_RESOURCE_TOKEN} only`,
    );
  }
}
