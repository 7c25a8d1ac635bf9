/**
 * The methods each path allows. The router answers a method a path does not allow with a 405; the
 * HTTP parser's refusals (a method Node does not know, `CONNECT`) never reach the router, so they
 * look the path up here to answer the same way.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { ApiError } from "../errors";

/** Which methods the app's paths allow, recorded as the routes are registered. */
export class AllowedMethods {
  readonly #paths: Array<{ readonly pattern: RegExp; readonly allow: readonly string[] }> = [];

  /**
   * Answers every method of `url` that `allow` leaves out with a 405 naming `allow`, from onRequest:
   * before authentication (the method is wrong whoever asks) and before any body is parsed (a PUT
   * with JSON is a 405, not a 415).
   */
  refuseOthers(app: FastifyInstance, url: string, allow: readonly string[]): void {
    this.#paths.push({ pattern: routePattern(url), allow });
    app.route({
      url,
      method: app.supportedMethods.filter((m) => !allow.includes(m)),
      onRequest: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) =>
        done(ApiError.methodNotAllowed(request.method, allow)),
      handler: () => {
        throw new Error("unreachable: onRequest refuses every request");
      },
    });
  }

  /** The methods `path` (without its query) allows, or undefined for a path the app does not have. */
  of(path: string): readonly string[] | undefined {
    return this.#paths.find(({ pattern }) => pattern.test(path))?.allow;
  }
}

/** A route URL as a regular expression: each `:param` matches one path segment. */
function routePattern(url: string): RegExp {
  const source = url
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}
