/**
 * The probes an orchestrator polls: `/healthz` (the process answers) and `/readyz` (it can serve:
 * the database answers and it is not shutting down). Neither needs a key nor counts against a
 * rate limit, so a probe can never be locked out by the traffic it watches.
 */
import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors";
import type { Repository } from "../repository";
import type { AllowedMethods } from "./methods";

/** The liveness path. */
const HEALTH_PATH = "/healthz";
/** The readiness path. */
const READY_PATH = "/readyz";

const PROBE_METHODS = ["GET", "HEAD"] as const;

/** The title of a readiness failure. */
const NOT_READY_TITLE = "The service is not ready.";

/** What the probes need from the app. */
interface HealthRoutesOptions {
  readonly repository: Repository;
  /** Whether the app is shutting down: it finishes what it has but should get no new work. */
  readonly closing: () => boolean;
  readonly methods: AllowedMethods;
}

function notReady(detail: string): ApiError {
  return new ApiError(503, [{ title: NOT_READY_TITLE, detail }], { "cache-control": "no-store" });
}

/** Registers `/healthz` and `/readyz` on `app`. */
export function registerHealthRoutes(app: FastifyInstance, options: HealthRoutesOptions): void {
  // Probes come every few seconds: at info level they would drown the log. Failures still log.
  const quiet = { logLevel: "warn" } as const;
  app.get(HEALTH_PATH, quiet, (_request, reply) =>
    reply.header("cache-control", "no-store").send({ status: "ok" }),
  );

  app.get(READY_PATH, quiet, async (request, reply) => {
    if (options.closing()) throw notReady("The server is shutting down.");
    try {
      await options.repository.ping();
    } catch (error) {
      // The cause (a path, an SQLite message) stays in the log, as for any 5xx.
      request.log.error({ err: error }, "readiness check: the database does not answer");
      throw notReady("The database does not answer.");
    }
    return reply.header("cache-control", "no-store").send({ status: "ready" });
  });

  for (const url of [HEALTH_PATH, READY_PATH]) options.methods.refuseOthers(app, url, PROBE_METHODS);
}
