#!/usr/bin/env node
/**
 * The `notification-handlers-server` command: `serve` runs the reference service, `keys create`
 * issues an API key. Logs go to stderr, so stdout carries only what scripts read: the
 * `listening on` line, or the new key.
 */
// First, before anything loads the SQLite store: on a Node.js without a usable node:sqlite it exits
// with one line saying which Node.js the server needs.
import "./node-requirement";

import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import {
  HANDLER_TYPE_NAMES,
  UsageError,
  formatDatetime,
  isHandlerType,
  parseCommandLine,
  reportFailure,
} from "#shared";
import { type BuildAppOptions, DEFAULT_RATE_LIMIT, buildApp } from "./app";
import { EMULATED_VERSIONS, type EmulatedVersion, isEmulatedVersion } from "./emulation";
import { openRepository } from "./open-repository";
import { DEFAULT_REQUEST_TIMEOUT } from "./protocol";
import { isPostgresUrl, maskedDatabaseUrl, urlScheme } from "./records";
import type { Repository } from "./repository";

/** Where `--db` points when it is not given, relative to the working directory. */
const DEFAULT_DB = "./.data/notification-handlers.db";
const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_PORT = 8080;

const DEFAULT_LOG_LEVEL = "info";
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const USAGE = `Usage:
  notification-handlers-server serve [--host ${DEFAULT_HOST}] [--port ${DEFAULT_PORT}] [--db PATH|URL] [--public-url URL] [--rate-limit N]
      [--request-timeout SECONDS] [--log-level LEVEL]
      [--emulate ${EMULATED_VERSIONS.join("|")} [--plan-limit N] [--disable-type TYPE]...] [--feature-off]
  notification-handlers-server keys create [--db PATH|URL] --user NAME [--admin]

  Each of these options may come from the environment instead; a flag given wins over it:
    --host HOST, --port PORT, --db DATABASE_URL, --public-url PUBLIC_URL, --rate-limit RATE_LIMIT,
    --request-timeout REQUEST_TIMEOUT, --log-level LOG_LEVEL.
  --db is an SQLite file (default ${DEFAULT_DB}; ":memory:" keeps nothing) or a PostgreSQL URL,
    postgres://USER:PASSWORD@HOST:PORT/DATABASE: several servers on one PostgreSQL database share its
    data and one rate-limit budget per key. The schema is created or upgraded on open.
  --rate-limit is requests per API key and minute (default ${DEFAULT_RATE_LIMIT}; 0 turns it off).
  --request-timeout is how long a request's headers and body may take to arrive, in seconds
    (default ${DEFAULT_REQUEST_TIMEOUT / 1000}); a request that stalls is answered 408 and cut off.
  --log-level is one of ${LOG_LEVELS.join(", ")} (default ${DEFAULT_LOG_LEVEL}).
  --emulate answers as that deployed version does (docs/api.md#deployed); --plan-limit caps each user's
    handlers and --disable-type switches a type off, both answered with the plan-limit 401.
  --feature-off answers every API path with an HTML 404 page, as a site with the feature off does.
  --admin issues an administrator key: emulated versions do not rate-limit it.
  Logs go to stderr as JSON lines.`;

/**
 * Where each option falls back to when its flag is not given. The names are the ones container
 * platforms and twelve-factor tooling already set (PORT, DATABASE_URL).
 */
const ENVIRONMENT = {
  host: "HOST",
  port: "PORT",
  db: "DATABASE_URL",
  "public-url": "PUBLIC_URL",
  "rate-limit": "RATE_LIMIT",
  "request-timeout": "REQUEST_TIMEOUT",
  "log-level": "LOG_LEVEL",
} as const;

type EnvironmentOption = keyof typeof ENVIRONMENT;

/** An option's value and where it came from, so errors name what the operator actually set. */
interface Setting {
  readonly value: string;
  /** `--port` or `PORT`. */
  readonly source: string;
}

/** The flag's value if given, else the environment's (an empty variable counts as unset), else `fallback`. */
function setting(option: EnvironmentOption, flag: string | boolean | undefined, fallback: string): Setting {
  if (typeof flag === "string") return { value: flag, source: `--${option}` };
  const name = ENVIRONMENT[option];
  const fromEnv = process.env[name];
  if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, source: name };
  return { value: fallback, source: `--${option}` };
}

function parseInteger({ value, source }: Setting, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${source} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

/** Seconds, with up to three decimals (`0.5`), as whole milliseconds. */
function parseSeconds({ value, source }: Setting, min: number, max: number): number {
  if (!/^\d+(\.\d{1,3})?$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${source} must be a number of seconds from ${min} to ${max}, got "${value}"`);
  }
  return Math.round(Number(value) * 1_000);
}

/**
 * Checks the database setting: a PostgreSQL URL is checked for form (it is connected to later), an
 * SQLite path gets its folder created, so a fresh checkout just works. Any other URL is refused
 * rather than taken as a file name (an unknown scheme would otherwise become a folder `name:`).
 * Errors show a URL without its password.
 */
function prepareDb({ value, source }: Setting): string {
  if (isPostgresUrl(value)) {
    if (!URL.canParse(value)) {
      throw new UsageError(
        `${source} is not a valid PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE): ${maskedDatabaseUrl(value)}`,
      );
    }
    if (new URL(value).hostname === "" && !new URL(value).searchParams.has("host")) {
      throw new UsageError(`${source} names no host: ${maskedDatabaseUrl(value)}`);
    }
    return value;
  }
  const scheme = urlScheme(value);
  if (scheme !== undefined) {
    throw new UsageError(
      `${source} is a ${scheme}:// URL; give a postgres:// URL, an SQLite file path or ":memory:"`,
    );
  }
  if (value !== ":memory:") mkdirSync(dirname(resolve(value)), { recursive: true });
  return value;
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host; // an IPv6 literal needs brackets in a URL
}

/** What `serve` runs with: its options read and checked, each from its flag or else its variable. */
interface ServeSettings {
  host: string;
  port: number;
  db: string;
  logLevel: string;
  app: Omit<BuildAppOptions, "repository" | "logger" | "db">;
}

/** Reads `serve`'s flags, falling back to their environment variables; a bad value is a UsageError. */
function serveSettings(args: readonly string[]): ServeSettings {
  // No defaults here: an option left out falls back to the environment first.
  const { values } = parseCommandLine(args, {
    host: { type: "string" },
    port: { type: "string" },
    db: { type: "string" },
    "public-url": { type: "string" },
    "rate-limit": { type: "string" },
    "request-timeout": { type: "string" },
    "log-level": { type: "string" },
    emulate: { type: "string" },
    "feature-off": { type: "boolean", default: false },
    "plan-limit": { type: "string" },
    "disable-type": { type: "string", multiple: true },
  });
  const rateLimit = parseInteger(
    setting("rate-limit", values["rate-limit"], String(DEFAULT_RATE_LIMIT)),
    0,
    1_000_000,
  );
  const requestTimeout = parseSeconds(
    setting("request-timeout", values["request-timeout"], String(DEFAULT_REQUEST_TIMEOUT / 1_000)),
    0.001,
    3_600,
  );
  const logLevel = setting("log-level", values["log-level"], DEFAULT_LOG_LEVEL);
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel.value)) {
    throw new UsageError(
      `${logLevel.source} must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel.value}"`,
    );
  }
  const publicUrl = checkedPublicUrl(setting("public-url", values["public-url"], ""));
  const emulate = emulatedVersion(values.emulate);
  const planLimit =
    values["plan-limit"] === undefined
      ? undefined
      : parseInteger({ value: String(values["plan-limit"]), source: "--plan-limit" }, 0, 1_000_000);
  const disabledTypes = (values["disable-type"] ?? []).map(String);
  for (const type of disabledTypes) {
    if (!isHandlerType(type)) {
      throw new UsageError(`--disable-type must be one of ${HANDLER_TYPE_NAMES.join(", ")}, got "${type}"`);
    }
  }
  if (emulate === undefined && (planLimit !== undefined || disabledTypes.length > 0)) {
    throw new UsageError("--plan-limit and --disable-type need --emulate");
  }
  return {
    host: setting("host", values.host, DEFAULT_HOST).value,
    port: parseInteger(setting("port", values.port, String(DEFAULT_PORT)), 0, 65_535),
    db: prepareDb(setting("db", values.db, DEFAULT_DB)),
    logLevel: logLevel.value,
    app: {
      rateLimit,
      requestTimeout,
      ...(publicUrl === undefined ? {} : { publicUrl }),
      ...(emulate === undefined ? {} : { emulate }),
      ...(planLimit === undefined ? {} : { planLimit }),
      ...(disabledTypes.length === 0 ? {} : { disabledTypes }),
      featureOff: values["feature-off"] === true,
    },
  };
}

/** The public URL, if one is set; refused unless it is an http or https URL. */
function checkedPublicUrl(publicUrl: { value: string; source: string }): string | undefined {
  if (publicUrl.value === "") return undefined;
  if (!/^https?:\/\//.test(publicUrl.value)) {
    throw new UsageError(`${publicUrl.source} must be an http or https URL, got "${publicUrl.value}"`);
  }
  if (!URL.canParse(publicUrl.value)) {
    throw new UsageError(`${publicUrl.source} is not a valid URL: "${publicUrl.value}"`);
  }
  return publicUrl.value;
}

/** Opens the store and builds the app over it; the app closes the store once it has closed. */
async function openApp(settings: ServeSettings): Promise<FastifyInstance> {
  const repository = await openRepository(settings.db);
  let app: FastifyInstance;
  try {
    app = buildApp({
      ...settings.app,
      repository,
      logger: { level: settings.logLevel, stream: process.stderr },
    });
  } catch (error) {
    await repository.close();
    throw error;
  }
  // The app was given the store, so it leaves it open: close it once the app has closed.
  app.addHook("onClose", async () => {
    await repository.close();
  });
  app.log.info({ store: describeStore(repository, settings.db) }, "store open");
  const { emulate } = settings.app;
  if (emulate !== undefined) app.log.info({ emulate }, `answering as deployed version ${emulate}`);
  return app;
}

/** On SIGTERM or SIGINT, closes the app gracefully; a second signal exits at once. */
function closeOnSignals(app: FastifyInstance): void {
  let closing: Promise<void> | undefined;
  const close = (signal: NodeJS.Signals): void => {
    if (closing !== undefined) {
      // A second signal means "now": give up on the requests still running.
      process.stderr.write(`${signal} again, exiting at once\n`);
      process.exit(1);
    }
    app.log.info({ signal }, "closing: finishing requests in flight");
    // close() stops accepting connections, waits for requests in flight, then closes the database.
    closing = app.close().catch((error: unknown) => {
      app.log.error({ err: error }, "close failed");
      process.exitCode = 1;
    });
  };
  process.on("SIGINT", close);
  process.on("SIGTERM", close);
}

async function serve(args: readonly string[]): Promise<number> {
  const settings = serveSettings(args);
  const app = await openApp(settings);
  closeOnSignals(app);
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const realPort = typeof address === "object" && address !== null ? address.port : settings.port;
  process.stdout.write(`listening on http://${hostForUrl(settings.host)}:${realPort}\n`);
  return 0;
}

/** The `--emulate` value, checked. */
function emulatedVersion(raw: string | boolean | undefined): EmulatedVersion | undefined {
  if (raw === undefined) return undefined;
  if (!isEmulatedVersion(raw)) {
    throw new UsageError(`--emulate must be one of ${EMULATED_VERSIONS.join(", ")}, got "${String(raw)}"`);
  }
  return raw;
}

/** The store for a log line: the kind and where, a URL without its password. */
function describeStore(repository: Repository, db: string): string {
  return `${repository.kind} ${repository.kind === "postgres" ? maskedDatabaseUrl(db) : db}`;
}

async function keys(args: readonly string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "create") {
    throw new UsageError(
      action === undefined ? "keys needs an action: create" : `unknown keys action "${action}"`,
    );
  }
  const { values } = parseCommandLine(rest, {
    db: { type: "string" },
    user: { type: "string" },
    admin: { type: "boolean", default: false },
  });
  const user = values.user === undefined ? "" : String(values.user).trim();
  if (user === "") throw new UsageError("keys create needs --user NAME");
  const repository = await openRepository(prepareDb(setting("db", values.db, DEFAULT_DB)));
  try {
    const now = formatDatetime(new Date());
    const key = await repository.createApiKey(await repository.ensureUser(user, now), now, {
      admin: values.admin === true,
    });
    process.stdout.write(`${key}\n`);
  } finally {
    await repository.close();
  }
  return 0;
}

/**
 * Runs the command line. Resolves to the exit code once the command has done its work; for
 * `serve` that is as soon as it listens, and the process then lives until a signal closes it.
 */
async function run(argv: readonly string[]): Promise<number> {
  const [command, ...args] = argv;
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    switch (command) {
      case "serve":
        return await serve(args);
      case "keys":
        return await keys(args);
      case "help":
        process.stdout.write(`${USAGE}\n`);
        return 0;
      default:
        throw new UsageError(command === undefined ? "missing command" : `unknown command "${command}"`);
    }
  } catch (error) {
    return reportFailure("notification-handlers-server", error, process);
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
