/** `GET /api/openapi.json`: the service's OpenAPI description, without a key or a rate limit. */
import type { FastifyInstance } from "fastify";
import { OPENAPI_PATH, openApiDocument } from "../openapi";
import type { AllowedMethods } from "./methods";

/** Registers the description's route on `app`. */
export function registerOpenApiRoute(app: FastifyInstance, methods: AllowedMethods): void {
  // Built once: it depends on nothing but the catalog.
  const document = JSON.stringify(openApiDocument());
  app.get(OPENAPI_PATH, (_request, reply) =>
    reply
      .type("application/json; charset=utf-8")
      .header("cache-control", "public, max-age=300")
      .send(document),
  );
  methods.refuseOthers(app, OPENAPI_PATH, ["GET", "HEAD"]);
}
