/** Bearer authentication and the per-key rate limit, run before anything else of a request. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, TITLES } from "./errors";
import type { KeyCharge, RequestLimiter } from "./limiter";
import type { Principal, Repository } from "./repository";

declare module "fastify" {
  interface FastifyRequest {
    /** The owner of the request's API key, once authenticated. */
    principal: Principal | null;
  }
}

// RFC 6750 token68 syntax; the scheme name is case-insensitive (RFC 9110 11.1).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined when the header is not one. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

/** The authenticated principal of a request; a route reached without one is a bug. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new Error("route reached without authentication");
  return request.principal;
}

/** Options of {@link authenticator}. */
export interface AuthenticatorOptions {
  /** Administrator keys are not limited: no count, no headers (when emulating deployed instances). */
  readonly adminsUnlimited?: boolean;
}

/**
 * An onRequest hook: checks the key (looked up on every request, so keys created or revoked by
 * another process take effect at once), then counts the request against the key's window; the
 * store does both in one step (`Repository.admit`).
 */
export function authenticator(
  repository: Repository,
  limiter: RequestLimiter | undefined,
  options: AuthenticatorOptions = {},
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const charge: KeyCharge | undefined =
    limiter === undefined ? undefined : { limiter, adminsUnlimited: options.adminsUnlimited === true };
  return async (request, reply) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) throw ApiError.missingBearer();
    const admission = await repository.admit(token, charge);
    if (admission === undefined) throw ApiError.noAccess();
    request.principal = admission.principal;
    const state = admission.rateLimit;
    if (state === undefined) return;
    // Set before a possible throw: the error answer keeps headers already on the reply.
    reply.header("x-ratelimit-limit", String(state.limit));
    reply.header("x-ratelimit-remaining", String(state.remaining));
    if (!state.allowed) {
      const reset = String(state.resetSeconds);
      throw new ApiError(
        429,
        [
          {
            title: TITLES.rateLimited,
            detail: `The limit is ${state.limit} requests a minute; retry in ${reset} s.`,
          },
        ],
        { "retry-after": reset, "x-ratelimit-reset": reset },
      );
    }
  };
}
