/**
 * `buildApp` assembles the reference Notification Handlers service without listening, so tests can
 * `inject` requests or listen on port 0, and `main.ts` can serve it. What the package exports of the
 * server is in `index.ts`.
 */
import { METHODS } from "node:http";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { HANDLER_TYPE_NAMES, isHandlerType } from "#shared";
import { authenticator } from "./auth";
import { type Clock, systemClock } from "./clock";
import {
  type EmulatedVersion,
  emulation,
  installFeatureOff,
  isEmulatedVersion,
  isFeaturePath,
  sendFeatureOff,
} from "./emulation";
import { FEATURE_OFF_PAGE } from "./emulation/feature-off";
import { ApiError, BODY_LIMIT, installErrorHandling, sendError } from "./errors";
import { installBodyParsers } from "./body-parsers";
import { type Presenter, referencePresenter } from "./presenter";
import { DEFAULT_REQUEST_TIMEOUT, connectHandler, protocolErrorHandler, timeoutOptions } from "./protocol";
import { isPostgresUrl } from "./records";
import type { Repository } from "./repository";
import { openSqliteRepository } from "./repository-sqlite";
import { registerHealthRoutes } from "./routes/health";
import { AllowedMethods } from "./routes/methods";
import { registerOpenApiRoute } from "./routes/openapi";
import { referenceRules, registerNotificationHandlerRoutes } from "./routes/notification-handlers";

/** The default number of requests per key and minute. */
export const DEFAULT_RATE_LIMIT = 60;

/** How to build the app. */
export interface BuildAppOptions {
  /**
   * The SQLite file to open, `:memory:` by default. The app owns it and closes it on `close()`.
   * Ignored when `repository` is given. A PostgreSQL store is opened with `await openRepository(url)`
   * and passed as `repository` (opening it takes a connection, which a synchronous build cannot wait for).
   */
  readonly db?: string;
  /** An already-open store. The caller owns it: `close()` leaves it open. */
  readonly repository?: Repository;
  /** The base URL of list links (`https://api.example.com`); derived from the request when absent. */
  readonly publicUrl?: string;
  /** Requests per API key and 60-second window; 0 turns the limit off. Default 60. */
  readonly rateLimit?: number;
  /** The rate-limit window in milliseconds, 60 s by default; tests shorten it rather than wait. */
  readonly rateLimitWindowMs?: number;
  /**
   * How long a request's headers and body may take to arrive, in milliseconds (default 20 s); one
   * that stalls is answered 408 and its connection closed within a second of the limit.
   */
  readonly requestTimeout?: number;
  /** Fastify's logger options; off by default. The Authorization header is always redacted. */
  readonly logger?: LoggerOption;
  /** The clock for datetimes and the rate-limit window; tests inject one. */
  readonly now?: Clock;
  /** The shape of answers; the reference shape (docs/api.md#endpoints) by default. Not with `emulate`. */
  readonly presenter?: Presenter;
  /** Answer as that deployed version does (docs/api.md#deployed); the reference server when absent. */
  readonly emulate?: EmulatedVersion;
  /**
   * The site has the feature switched off: every path under `/api/notification-handlers` answers an
   * HTML 404 page, before authentication (docs/api.md#deployed-feature-off). With or without `emulate`.
   */
  readonly featureOff?: boolean;
  /** Handler types the emulated site's administrator switched off (a create answers the plan-limit 401). */
  readonly disabledTypes?: readonly string[];
  /** The most handlers a user's plan allows on the emulated site (one more answers the plan-limit 401). */
  readonly planLimit?: number;
}

/** Fastify's logger option: `true`, `false` or pino options (`{ level, stream }`). */
export type LoggerOption = NonNullable<FastifyServerOptions["logger"]>;

/** Log paths that could hold the API key; pino replaces them wherever they appear. */
const REDACTED_PATHS = [
  "req.headers.authorization",
  "request.headers.authorization",
  "headers.authorization",
  "err.headers.authorization",
];

function loggerOptions(logger: LoggerOption | undefined): LoggerOption {
  if (logger === undefined || logger === false) return false;
  const base = logger === true ? {} : logger;
  return { ...base, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } };
}

/** Parses a query string into every value of every name, so repeated parameters can be refused. */
function parseQueryString(query: string): Record<string, string[]> {
  const result: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of new URLSearchParams(query)) (result[name] ??= []).push(value);
  return result;
}

/** Refuses emulation options that name no version or setting, or that come without `emulate`. */
function checkEmulationOptions(options: BuildAppOptions): void {
  if (options.emulate !== undefined && !isEmulatedVersion(options.emulate)) {
    throw new RangeError(`emulate must be 2023, 2025 or 2026, got ${String(options.emulate)}`);
  }
  if (options.emulate !== undefined && options.presenter !== undefined) {
    throw new RangeError("presenter and emulate exclude each other: the emulation brings its own presenter");
  }
  const siteOptions = options.disabledTypes !== undefined || options.planLimit !== undefined;
  if (siteOptions && options.emulate === undefined) {
    throw new RangeError("disabledTypes and planLimit need emulate: the reference server has neither");
  }
  const unknown = options.disabledTypes?.find((type) => !isHandlerType(type));
  if (unknown !== undefined) {
    throw new RangeError(`disabledTypes: ${unknown} is not one of ${HANDLER_TYPE_NAMES.join(", ")}`);
  }
  if (
    options.planLimit !== undefined &&
    (!Number.isSafeInteger(options.planLimit) || options.planLimit < 0)
  ) {
    throw new RangeError(`planLimit must be a whole number from 0, got ${options.planLimit}`);
  }
}

/** The options checked, with their defaults and the emulation they ask for. */
function resolvedOptions(options: BuildAppOptions): {
  emulated: ReturnType<typeof emulation> | undefined;
  presenter: Presenter;
  now: Clock;
  rateLimit: number;
  requestTimeout: number;
} {
  checkEmulationOptions(options);
  // The emulation of a deployed version swaps the presenter and the rules and adds hooks; the
  // routes and the store stay the same.
  const emulated =
    options.emulate === undefined
      ? undefined
      : emulation(options.emulate, {
          ...(options.disabledTypes === undefined ? {} : { disabledTypes: new Set(options.disabledTypes) }),
          ...(options.planLimit === undefined ? {} : { planLimit: options.planLimit }),
        });
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  if (!Number.isSafeInteger(rateLimit) || rateLimit < 0) {
    throw new RangeError(`rateLimit must be a whole number from 0, got ${rateLimit}`);
  }
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  if (!Number.isSafeInteger(requestTimeout) || requestTimeout < 1) {
    throw new RangeError(
      `requestTimeout must be a whole number of milliseconds from 1, got ${requestTimeout}`,
    );
  }
  if (options.publicUrl !== undefined && !URL.canParse(options.publicUrl)) {
    throw new RangeError(`publicUrl is not a URL: ${options.publicUrl}`);
  }
  return {
    emulated,
    presenter: emulated?.presenter ?? options.presenter ?? referencePresenter,
    now: options.now ?? systemClock,
    rateLimit,
    requestTimeout,
  };
}

/**
 * Follows the app's close: once it starts, readiness fails (the returned function says so) and
 * answers to requests already in flight end their connection, since a client's idle keep-alive socket
 * would otherwise hold `close()` open until the client drops it.
 */
function trackClosing(app: FastifyInstance): () => boolean {
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) reply.header("connection", "close");
    done(null, payload);
  });
  return () => closing;
}

/** Builds the service. Call `listen` to serve it, or `inject` to test it; `close` releases it. */
export function buildApp(options: BuildAppOptions = {}): FastifyInstance {
  const { emulated, presenter, now, rateLimit, requestTimeout } = resolvedOptions(options);
  const methods = new AllowedMethods();
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    http: timeoutOptions(requestTimeout),
    requestTimeout, // Fastify sets the server's own, overriding the option above when left out
    clientErrorHandler: (error, socket) => protocol(error, socket),
    logger: loggerOptions(options.logger),
    // A request that arrives on an open connection while closing is still served (with
    // Connection: close) rather than refused with Fastify's own 503 body: the store stays open
    // until the server has closed.
    return503OnClosing: false,
    routerOptions: { querystringParser: parseQueryString },
    // An undecodable path (`%zz`) or an absurdly long id names nothing: the JSON 404, not
    // Fastify's own 400 or 414 body.
    frameworkErrors: (error, request, reply) => {
      if (options.featureOff === true && isFeaturePath(request.url)) {
        sendFeatureOff(reply);
        return;
      }
      const unknown = error.code === "FST_ERR_BAD_URL" || error.code === "FST_ERR_MAX_PARAM_LENGTH";
      const mapped = unknown ? ApiError.notFound() : error;
      sendError(request, reply, mapped, presenter.error);
    },
  });

  const protocolOptions = {
    allowedMethods: (path: string) => methods.of(path),
    render: presenter.error,
    requestTimeout,
    ...(options.featureOff === true
      ? { featureOff: { matches: isFeaturePath, page: FEATURE_OFF_PAGE } }
      : {}),
    log: app.log,
  };
  const protocol = protocolErrorHandler(protocolOptions);
  app.server.on("connect", connectHandler(protocolOptions));

  // Open the store after Fastify accepted its options, and close it if anything below fails.
  const ownsRepository = options.repository === undefined;
  if (ownsRepository && options.db !== undefined && isPostgresUrl(options.db)) {
    throw new RangeError(
      "db: a PostgreSQL URL is opened with `await openRepository(url)` and passed as `repository`",
    );
  }
  const repository = options.repository ?? openSqliteRepository(options.db ?? ":memory:");
  try {
    // Methods Node parses but Fastify does not route by default (PROPFIND, LOCK...) still get a 405.
    for (const method of METHODS) {
      if (method !== "CONNECT" && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
    }

    app.decorateRequest("principal", null);
    installErrorHandling(app, presenter.error);
    if (options.featureOff === true) installFeatureOff(app);
    emulated?.install(app);

    installBodyParsers(app);

    registerNotificationHandlerRoutes(app, {
      repository,
      presenter,
      rules: emulated?.rules(repository) ?? referenceRules,
      now,
      publicUrl: options.publicUrl,
      authenticate: authenticator(
        repository,
        rateLimit > 0 ? repository.rateLimiter(rateLimit, now, options.rateLimitWindowMs) : undefined,
        emulated?.authenticatorOptions,
      ),
      methods,
    });
    registerHealthRoutes(app, { repository, closing: trackClosing(app), methods });
    if (emulated === undefined) registerOpenApiRoute(app, methods); // it describes the reference only

    if (ownsRepository) {
      app.addHook("onClose", async () => {
        await repository.close();
      });
    }
  } catch (error) {
    if (ownsRepository) void repository.close(); // SQLite closes at once
    throw error;
  }
  return app;
}
