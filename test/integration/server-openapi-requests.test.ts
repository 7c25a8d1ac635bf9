/**
 * Requests the OpenAPI description allows, sent to the server: each is accepted, or refused only for
 * the reason the document states; and what the document refuses, the server refuses. Generated
 * datetimes (impossible days, leap years) and forms that mix handler types, each judged by the
 * document's own schema, so a document that admits more than the server fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FieldRule,
  HANDLER_TYPE_NAMES,
  type HandlerType,
  fieldsOf,
  typeOfField,
} from "../../sdk/client/catalog";
import { openApiDocument } from "../../server";
import { TITLES } from "../../server/errors";
import { seededRandom } from "../support/seeded-random";
import { validatorAt } from "./openapi-check";
import { type Answer, type TestServer, errorsOf, parametersOf, startServer } from "./server-helpers";

const PATH = "/api/notification-handlers";
const SEED = 20_240_229;
/** Requests in flight at once. */
const CONCURRENCY = 8;

/** A value each rule accepts. */
const VALID: Record<FieldRule, string> = {
  email: "ops@example.com",
  "http-url": "http://hooks.example.com/a",
  "https-url": "https://hooks.example.com/a",
  "telegram-token": "123456:AAE-x_y",
  "telegram-chat-id": "-1001234",
  "non-empty": "s3cr3t",
  phone: "+15551234567",
};

/** A JSON pointer segment. */
function escape(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

type Json = Record<string, unknown>;
const paths = openApiDocument()["paths"] as Record<string, Record<string, Json>>;

/** The document's validator for the list's query parameter `name`. */
function queryParameterValidator(name: string) {
  const parameters = paths[PATH]?.["get"]?.["parameters"] as Json[];
  const index = parameters.findIndex((p) => p["name"] === name);
  expect(index, name).toBeGreaterThanOrEqual(0);
  return validatorAt(`/paths/${escape(PATH)}/get/parameters/${index}/schema`);
}

/** The document's validator for the form body of `POST path`. */
function formValidator(path: string) {
  return validatorAt(`/paths/${escape(path)}/post/requestBody/content/multipart~1form-data/schema`);
}

/** Runs `send` on every item, CONCURRENCY at a time. */
async function each<T>(items: readonly T[], send: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await send(items[next++] as T);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startServer();
  key = await server.key();
});
afterAll(() => server.close());

describe("datetime_start and datetime_end", () => {
  const pad = (n: number, width: number) => String(n).padStart(width, "0");

  it("are accepted exactly when the document's pattern accepts them", async () => {
    const r = seededRandom(SEED);
    const years = [0, 1900, 2000, 2023, 2024, 2100];
    const values = [
      "0000-00-00 00:00:00",
      "2024-02-29 12:00:00",
      "2023-02-29 12:00:00",
      "1900-02-29 12:00:00",
      "2000-02-29 12:00:00",
      "2024-04-31 12:00:00",
      "2024-12-31 23:59:59",
      ...Array.from({ length: 400 }, () => {
        const year = r.chance(0.5) ? r.pick(years) : r.int(10_000);
        const date = `${pad(year, 4)}-${pad(r.int(14), 2)}-${pad(r.int(33), 2)}`;
        return `${date} ${pad(r.int(25), 2)}:${pad(r.int(61), 2)}:${pad(r.int(61), 2)}`;
      }),
    ].map((value) => ({ name: r.pick(["datetime_start", "datetime_end"]), value }));
    const tally = { accepted: 0, refused: 0 };
    await each(values, async ({ name, value }) => {
      const allowed = queryParameterValidator(name)(value);
      const answer = await server.call(
        "GET",
        `${PATH}?${new URLSearchParams({ [name]: value }).toString()}`,
        { key },
      );
      expect([value, answer.status]).toEqual([value, allowed ? 200 : 400]);
      if (!allowed) expect(parametersOf(answer)).toEqual([name]);
      tally[allowed ? "accepted" : "refused"] += 1;
    });
    // Both sides are well represented, so the check above cannot pass by never meeting one.
    expect(tally.accepted).toBeGreaterThan(50);
    expect(tally.refused).toBeGreaterThan(50);
  });
});

describe("forms that mix handler types", () => {
  /** A form with fields of the types `types` (each field sent with probability `p`), some blank. */
  function fieldsOfTypes(
    r: ReturnType<typeof seededRandom>,
    types: readonly HandlerType[],
    p: number,
  ): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const type of types) {
      for (const spec of fieldsOf(type)) {
        if (r.chance(p)) fields[spec.field] = r.chance(0.05) ? "  " : VALID[spec.rule];
      }
    }
    return fields;
  }

  async function createHandler(type: HandlerType): Promise<number> {
    const form: Record<string, string> = { name: `h ${type}`, type };
    for (const spec of fieldsOf(type)) form[spec.field] = VALID[spec.rule];
    const answer = await server.call("POST", PATH, { key, form });
    expect(answer.status).toBe(201);
    return (answer.json as { data: { id: number } }).data.id;
  }

  it("on create: accepted exactly when the document's oneOf accepts the form", async () => {
    const r = seededRandom(SEED + 1);
    const allowed = formValidator(PATH);
    const forms = Array.from({ length: 200 }, () => {
      const type = r.pick(HANDLER_TYPE_NAMES);
      const others = r.chance(0.3) ? [r.pick(HANDLER_TYPE_NAMES)] : [];
      return {
        name: r.chance(0.05) ? " " : "created",
        type,
        ...fieldsOfTypes(r, [type], r.chance(0.7) ? 1 : 0.5),
        ...fieldsOfTypes(r, others, 0.5),
      };
    });
    const tally = { accepted: 0, refused: 0 };
    await each(forms, async (form) => {
      const expected = allowed(form) ? 201 : 400;
      const answer = await server.call("POST", PATH, { key, form });
      expect([form, answer.status]).toEqual([form, expected]);
      tally[expected === 201 ? "accepted" : "refused"] += 1;
    });
    expect(tally.accepted).toBeGreaterThan(30);
    expect(tally.refused).toBeGreaterThan(30);
  });

  it("on update: accepted, or refused only by the documented rule on the handler's current type", async () => {
    const allowed = formValidator(`${PATH}/{notification_handler_id}`);
    const tally = { accepted: 0, refusedByDocument: 0, refusedByCurrentType: 0 };
    // One handler per worker, each worker's updates in sequence, so each knows its handler's type;
    // a generator each, so the run repeats whatever order the answers come in.
    const workers = Array.from({ length: CONCURRENCY }, (_, i) => i);
    await each(workers, async (worker) => {
      const r = seededRandom(SEED + 10 + worker);
      let current = r.pick(HANDLER_TYPE_NAMES);
      const id = await createHandler(current);
      for (let i = 0; i < 60; i++) {
        const sent = r.chance(0.4) ? undefined : r.chance(0.4) ? current : r.pick(HANDLER_TYPE_NAMES);
        const own = sent ?? (r.chance(0.7) ? current : r.pick(HANDLER_TYPE_NAMES));
        const others = r.chance(0.2) ? [r.pick(HANDLER_TYPE_NAMES)] : [];
        const form: Record<string, string> = {
          ...(r.chance(0.3) ? { name: r.chance(0.1) ? " " : `renamed ${i}` } : {}),
          ...(r.chance(0.2) ? { is_enabled: r.pick(["0", "1", "true"]) } : {}),
          ...(sent === undefined ? {} : { type: sent }),
          ...fieldsOfTypes(r, [own], r.chance(0.5) ? 1 : 0.5),
          ...fieldsOfTypes(r, others, 0.5),
        };
        const answer = await server.call("POST", `${PATH}/${id}`, { key, form });
        if (!allowed(form)) {
          expect([form, answer.status]).toEqual([form, 400]);
          tally.refusedByDocument += 1;
          continue;
        }
        // The document's rule: the fields are the current type's, or `type` switches with all its fields.
        const ownType = formType(form) ?? current;
        const switches = sent !== undefined && fieldsOf(sent).every((f) => f.field in form);
        if (ownType === current || switches) {
          expect([form, current, answer.status]).toEqual([form, current, 200]);
          current = sent ?? current;
          tally.accepted += 1;
          continue;
        }
        expect([form, current, answer.status]).toEqual([form, current, 400]);
        // What the schema promises whatever the state: a handler of the form's own type takes it.
        const fitting = await server.call("POST", `${PATH}/${await createHandler(ownType)}`, { key, form });
        expect([form, ownType, fitting.status]).toEqual([form, ownType, 200]);
        expectTypeRuleRefusal(answer, form, ownType);
        tally.refusedByCurrentType += 1;
      }
    });
    expect(tally.accepted).toBeGreaterThan(50);
    expect(tally.refusedByDocument).toBeGreaterThan(50);
    expect(tally.refusedByCurrentType).toBeGreaterThan(20);
  });
});

/** The type a form names: its `type`, else that of its first type-specific field, else none. */
function formType(form: Readonly<Record<string, string>>): HandlerType | undefined {
  const sent = form["type"];
  if (sent !== undefined) return sent as HandlerType;
  return Object.keys(form).flatMap((name) => typeOfField(name) ?? [])[0];
}

/** The 400 the update's rule documents: each entry a field the form sends, or the new type lacks. */
function expectTypeRuleRefusal(answer: Answer, form: Readonly<Record<string, string>>, own: HandlerType) {
  for (const error of errorsOf(answer)) {
    expect(error.title).toBe(TITLES.invalidField);
    const field = error.source?.parameter ?? "";
    expect(typeOfField(field), field).toBe(own);
    expect(error.detail ?? "").toMatch(field in form ? /belongs to type/ : /is required for type/);
  }
}
