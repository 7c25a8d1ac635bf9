/**
 * The rate limit of deployed instances (CONTRACT.md Part B, "Rate limit"): the reference limiter
 * (60 requests per key and fixed minute by default), with two differences.
 */
import type { FastifyInstance } from "fastify";
import type { AuthenticatorOptions } from "../auth";

/** Part B: "Administrator keys get no rate-limit headers and no limit." */
export const deployedAuthenticatorOptions: AuthenticatorOptions = {
  adminsUnlimited: true,
};

/**
 * Part B: "the 61st call answers `429` with `X-RateLimit-Reset` (seconds) and no `Remaining`".
 * Deployed instances send no `Retry-After` either, so a client must read `X-RateLimit-Reset`.
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
