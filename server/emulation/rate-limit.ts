/**
 * The rate limit of deployed instances (docs/api.md#deployed-rate-limit): the reference limiter
 * (60 requests per key and fixed minute by default), with two differences.
 */
import type { FastifyInstance } from "fastify";
import type { AuthenticatorOptions } from "../auth";

/** Administrator keys get no limit and no rate-limit headers (docs/api.md#deployed-admin-keys). */
export const deployedAuthenticatorOptions: AuthenticatorOptions = {
  adminsUnlimited: true,
};

/**
 * A deployed 429 carries `X-RateLimit-Reset` but neither `X-RateLimit-Remaining` nor `Retry-After`
 * (docs/api.md#deployed-rate-limit), so a client must read `X-RateLimit-Reset`.
 */
export function installDeployedRateLimitHeaders(app: FastifyInstance): void {
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (reply.statusCode === 429) {
      reply.removeHeader("x-ratelimit-remaining");
      reply.removeHeader("retry-after");
    }
    done(null, payload);
  });
}
