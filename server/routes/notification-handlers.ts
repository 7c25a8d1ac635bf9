/** The notification-handler routes: list, create, read, update, delete, and 405 for other methods. */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { principalOf } from "../auth";
import { formatDatetime } from "#shared";
import type { Clock } from "../clock";
import { ApiError, FORM_CONTENT_TYPES } from "../errors";
import type { Answer, Presenter } from "../presenter";
import type { HandlerData, HandlerRecord, Repository } from "../repository";
import type { AllowedMethods } from "./methods";
import {
  type FormEntry,
  type HandlerListQuery,
  type Validation,
  parseHandlerCreate,
  parseHandlerUpdate,
  parseListQuery,
} from "../schemas/notification-handlers";

/**
 * How the routes read a request and what an update stores. Like the presenter, swapped to emulate a
 * deployed version; every method throws an `ApiError` for a request it refuses.
 */
export interface HandlerRules {
  /** The handler a create form describes, for the user `userId` (a plan limit asks the store). */
  create(form: readonly FormEntry[], userId: number): HandlerData | Promise<HandlerData>;
  /**
   * What an update stores over `current`, or undefined when it stores nothing. Called while the
   * store holds the handler for the update, so it does no I/O.
   */
  update(form: readonly FormEntry[], current: HandlerRecord): HandlerData | undefined;
  /** The filters, order and page a list request asks for. */
  list(query: Readonly<Record<string, readonly string[]>>): HandlerListQuery;
}

/** The reference rules: every invalid input is a 400 naming it (docs/api.md#error-statuses). */
export const referenceRules: HandlerRules = {
  create: (form) => orBadRequest(parseHandlerCreate(form)),
  update: (form, current) => orBadRequest(parseHandlerUpdate(form, current)),
  list: (query) => orBadRequest(parseListQuery(query)),
};

/** What the routes need from the app. */
interface NotificationHandlerRoutesOptions {
  readonly repository: Repository;
  readonly presenter: Presenter;
  /** How requests are read; the reference rules when absent. */
  readonly rules?: HandlerRules;
  readonly now: Clock;
  /** Base of list links; undefined derives it from the request's Host. */
  readonly publicUrl: string | undefined;
  /** The onRequest hook that authenticates and rate-limits. */
  readonly authenticate: onRequestAsyncHookHandler;
  /** Where the routes record the methods of their paths and get their 405s. */
  readonly methods: AllowedMethods;
}

const COLLECTION = "/api/notification-handlers";
/** The list and create paths: with and without the trailing slash. */
const COLLECTION_PATHS = [COLLECTION, `${COLLECTION}/`] as const;
/** The read, update and delete path. */
const ITEM_PATH = `${COLLECTION}/:id`;

const COLLECTION_METHODS = ["GET", "HEAD", "POST"] as const;
const ITEM_METHODS = ["GET", "HEAD", "POST", "DELETE"] as const;

/**
 * Parses a path id: a canonical decimal integer from 1 to 2^53 - 1. Anything else names no handler:
 * `0003` is not another spelling of 3, so one handler has one URL (docs/api.md#ids).
 */
export function parseId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id >= 1 && Number.isSafeInteger(id) ? id : undefined;
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status);
  if (answer.headers !== undefined) reply.headers(answer.headers);
  return answer.body === undefined ? reply.send() : reply.send(answer.body);
}

function orBadRequest<T>(result: Validation<T>): T {
  if (!result.ok) throw ApiError.badRequest(result.problems);
  return result.value;
}

function mediaType(request: FastifyRequest): string | undefined {
  return request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
}

/** The parsed form of a create or update; the body parsers already refused other content types. */
function formOf(request: FastifyRequest): readonly FormEntry[] {
  const type = mediaType(request);
  if (!FORM_CONTENT_TYPES.some((t) => t === type)) {
    throw ApiError.unsupportedMediaType(request.headers["content-type"]);
  }
  return Array.isArray(request.body) ? (request.body as FormEntry[]) : [];
}

function idOf(request: FastifyRequest): number {
  const id = parseId((request.params as { id?: string }).id ?? "");
  if (id === undefined) throw ApiError.notFound();
  return id;
}

/** Registers the routes on `app`. */
export function registerNotificationHandlerRoutes(
  app: FastifyInstance,
  options: NotificationHandlerRoutesOptions,
): void {
  const { repository, presenter, now, authenticate } = options;
  const rules = options.rules ?? referenceRules;
  const publicUrl = options.publicUrl?.replace(/\/+$/, "");

  /** The handler each item request's hook found, for its route. */
  const found = new WeakMap<FastifyRequest, HandlerRecord>();

  /** Answers 404 before the body is read when the id names none of the user's handlers. */
  const requireHandler: onRequestAsyncHookHandler = async (request) => {
    const id = parseId((request.params as { id?: string }).id ?? "");
    const record =
      id === undefined ? undefined : await repository.getHandler(principalOf(request).userId, id);
    if (record === undefined) throw ApiError.notFound();
    found.set(request, record);
  };

  const handlerOf = (request: FastifyRequest): HandlerRecord => {
    const record = found.get(request);
    if (record === undefined) throw new Error("item route reached without its handler");
    return record;
  };

  const collectionUrl = (request: FastifyRequest): string => {
    const base = publicUrl ?? `${request.protocol}://${request.host || "localhost"}`;
    return `${base}${COLLECTION}`;
  };

  for (const url of COLLECTION_PATHS) {
    app.get(url, { onRequest: authenticate }, async (request, reply) => {
      const principal = principalOf(request);
      const raw = request.query as Record<string, string[]>;
      const query = rules.list(raw);
      const offset = (query.page - 1) * query.resultsPerPage;
      const { records, total } = await repository.listHandlers(
        principal.userId,
        query,
        query.resultsPerPage,
        offset,
      );
      const totalPages = Math.max(1, Math.ceil(total / query.resultsPerPage));
      return send(
        reply,
        presenter.list({
          records,
          page: query.page,
          resultsPerPage: query.resultsPerPage,
          total,
          totalPages,
          collectionUrl: collectionUrl(request),
          linkParams: query.linkParams,
          pageGiven: Object.hasOwn(raw, "page"),
        }),
      );
    });

    app.post(url, { onRequest: authenticate }, async (request, reply) => {
      const principal = principalOf(request);
      const data = await rules.create(formOf(request), principal.userId);
      const record = await repository.createHandler(principal.userId, data, formatDatetime(new Date(now())));
      return send(reply, presenter.created(record));
    });
  }

  const itemHooks = { onRequest: [authenticate, requireHandler] };

  // A read answers the handler as its hook read it, during this request: reading it again would
  // cost a second trip to the store for the same answer.
  app.get(ITEM_PATH, itemHooks, async (request, reply) => send(reply, presenter.read(handlerOf(request))));

  app.post(ITEM_PATH, itemHooks, async (request, reply) => {
    const { userId } = principalOf(request);
    const id = idOf(request);
    const form = formOf(request);
    // The store merges the form into the handler and writes, atomically: no other update lands
    // between the read and the write. It starts from the hook's read, and reads again if the handler
    // changed or went since (while the body arrived).
    const record = await repository.updateHandler(
      userId,
      id,
      (current) => rules.update(form, current),
      formatDatetime(new Date(now())),
      handlerOf(request),
    );
    if (record === undefined) throw ApiError.notFound();
    return send(reply, presenter.updated(record));
  });

  app.delete(ITEM_PATH, itemHooks, async (request, reply) => {
    const record = await repository.deleteHandler(principalOf(request).userId, idOf(request));
    if (record === undefined) throw ApiError.notFound();
    return send(reply, presenter.deleted(record));
  });

  for (const url of COLLECTION_PATHS) options.methods.refuseOthers(app, url, COLLECTION_METHODS);
  options.methods.refuseOthers(app, ITEM_PATH, ITEM_METHODS);
}
