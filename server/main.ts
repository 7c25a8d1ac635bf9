#!/usr/bin/env node
/**
 * The `notification-handlers-server` command: `serve` runs the reference service, `keys create`
 * issues an API key. Logs go to stderr, so stdout carries only what scripts read: the
 * `listening on` line, or the new key.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import type { FastifyInstance } from "fastify";
import { HANDLER_TYPE_NAMES, isHandlerType } from "../sdk/catalog";
import {
  DEFAULT_RATE_LIMIT,
  EMULATED_VERSIONS,
  type EmulatedVersion,
  buildApp,
  isEmulatedVersion,
} from "./app";
import { formatDatetime } from "./clock";
import { openRepository } from "./repository";

/** Where `--db` points when it is not given, relative to the working directory. */
export const DEFAULT_DB = "./.data/notification-handlers.db";
const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_PORT = 8080;

const USAGE = `Usage:
  notification-handlers-server serve [--host ${DEFAULT_HOST}] [--port ${DEFAULT_PORT}] [--db PATH] [--public-url URL] [--rate-limit N]
      [--emulate ${EMULATED_VERSIONS.join("|")} [--plan-limit N] [--disable-type TYPE]...] [--feature-off]
  notification-handlers-server keys create [--db PATH] --user NAME [--admin]

  --db defaults to ${DEFAULT_DB}; ":memory:" keeps nothing.
  --rate-limit is requests per API key and minute (default ${DEFAULT_RATE_LIMIT}; 0 turns it off).
  --emulate answers as that deployed version does (CONTRACT.md Part B); --plan-limit caps each user's
    handlers and --disable-type switches a type off, both answered with the plan-limit 401.
  --feature-off answers every API path with an HTML 404 page, as a site with the feature off does.
  --admin issues an administrator key: emulated versions do not rate-limit it.
  Logs go to stderr as JSON lines; LOG_LEVEL sets their level (default info).`;

/** A command-line mistake: reported on one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The streams and process hooks a command uses; tests may pass their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Registers what to do on SIGINT and SIGTERM. */
  readonly onSignal: (handler: (signal: NodeJS.Signals) => void) => void;
}

const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  onSignal: (handler) => {
    process.on("SIGINT", handler);
    process.on("SIGTERM", handler);
  },
};

function parseInteger(option: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${option} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** Opens the database at `path`, creating its folder first so a fresh checkout just works. */
function prepareDb(path: string): string {
  if (path !== ":memory:") mkdirSync(dirname(resolve(path)), { recursive: true });
  return path;
}

function parse<T extends ParseArgsOptionsConfig>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: false, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host; // an IPv6 literal needs brackets in a URL
}

async function serve(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parse(args, {
    host: { type: "string", default: DEFAULT_HOST },
    port: { type: "string", default: String(DEFAULT_PORT) },
    db: { type: "string", default: DEFAULT_DB },
    "public-url": { type: "string" },
    "rate-limit": { type: "string", default: String(DEFAULT_RATE_LIMIT) },
    emulate: { type: "string" },
    "feature-off": { type: "boolean", default: false },
    "plan-limit": { type: "string" },
    "disable-type": { type: "string", multiple: true },
  });
  const host = String(values.host);
  const port = parseInteger("port", String(values.port), 0, 65_535);
  const rateLimit = parseInteger("rate-limit", String(values["rate-limit"]), 0, 1_000_000);
  const publicUrl = values["public-url"] === undefined ? undefined : String(values["public-url"]);
  if (publicUrl !== undefined && !/^https?:\/\//.test(publicUrl)) {
    throw new UsageError(`--public-url must be an http or https URL, got "${publicUrl}"`);
  }
  if (publicUrl !== undefined && !URL.canParse(publicUrl)) {
    throw new UsageError(`--public-url is not a valid URL: "${publicUrl}"`);
  }

  const emulate = emulatedVersion(values.emulate);
  const planLimit =
    values["plan-limit"] === undefined
      ? undefined
      : parseInteger("plan-limit", String(values["plan-limit"]), 0, 1_000_000);
  const disabledTypes = (values["disable-type"] ?? []).map(String);
  for (const type of disabledTypes) {
    if (!isHandlerType(type)) {
      throw new UsageError(`--disable-type must be one of ${HANDLER_TYPE_NAMES.join(", ")}, got "${type}"`);
    }
  }
  if (emulate === undefined && (planLimit !== undefined || disabledTypes.length > 0)) {
    throw new UsageError("--plan-limit and --disable-type need --emulate");
  }

  const app: FastifyInstance = buildApp({
    db: prepareDb(String(values.db)),
    rateLimit,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(emulate === undefined ? {} : { emulate }),
    ...(planLimit === undefined ? {} : { planLimit }),
    ...(disabledTypes.length === 0 ? {} : { disabledTypes }),
    featureOff: values["feature-off"] === true,
    logger: { level: process.env["LOG_LEVEL"] ?? "info", stream: io.stderr },
  });
  if (emulate !== undefined) app.log.info({ emulate }, `answering as deployed version ${emulate}`);

  let closing: Promise<void> | undefined;
  io.onSignal((signal) => {
    if (closing !== undefined) {
      // A second signal means "now": give up on the requests still running.
      io.stderr.write(`${signal} again, exiting at once\n`);
      process.exit(1);
    }
    app.log.info({ signal }, "closing: finishing requests in flight");
    // close() stops accepting connections, waits for requests in flight, then closes the database.
    closing = app.close().catch((error: unknown) => {
      app.log.error({ err: error }, "close failed");
      process.exitCode = 1;
    });
  });

  try {
    await app.listen({ host, port });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  const realPort = typeof address === "object" && address !== null ? address.port : port;
  io.stdout.write(`listening on http://${hostForUrl(host)}:${realPort}\n`);
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

function keys(args: readonly string[], io: CliIo): number {
  const [action, ...rest] = args;
  if (action !== "create") {
    throw new UsageError(
      action === undefined ? "keys needs an action: create" : `unknown keys action "${action}"`,
    );
  }
  const { values } = parse(rest, {
    db: { type: "string", default: DEFAULT_DB },
    user: { type: "string" },
    admin: { type: "boolean", default: false },
  });
  const user = values.user === undefined ? "" : String(values.user).trim();
  if (user === "") throw new UsageError("keys create needs --user NAME");
  const repository = openRepository(prepareDb(String(values.db)));
  try {
    const now = formatDatetime(Date.now());
    const key = repository.createApiKey(repository.ensureUser(user, now), now, {
      admin: values.admin === true,
    });
    io.stdout.write(`${key}\n`);
  } finally {
    repository.close();
  }
  return 0;
}

/**
 * Runs the command line. Resolves to the exit code once the command has done its work; for
 * `serve` that is as soon as it listens, and the process then lives until a signal closes it.
 */
export async function run(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...args] = argv;
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    switch (command) {
      case "serve":
        return await serve(args, io);
      case "keys":
        return keys(args, io);
      case "help":
        io.stdout.write(`${USAGE}\n`);
        return 0;
      default:
        throw new UsageError(command === undefined ? "missing command" : `unknown command "${command}"`);
    }
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
    if (error instanceof UsageError) {
      io.stderr.write(`notification-handlers-server: ${message} (see --help)\n`);
      return 2;
    }
    io.stderr.write(`notification-handlers-server: ${message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void run(process.argv.slice(2)).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
