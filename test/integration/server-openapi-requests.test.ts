/**
 * Requests sent to the real server, each judged first by the OpenAPI description's own schemas: what
 * the document allows is accepted, and what it refuses is refused, for every rule that does not depend
 * on the stored handler; an update refused for the rule that does is refused only as the document's
 * words say. Generated field values for every field of the catalog (lengths at the limit, blanks,
 * characters outside the BMP, URLs with hosts in Unicode or percent-escaped and with blanks or control
 * characters in and around them), names, spellings of type and is_enabled, every list parameter, path
 * ids, content types, datetimes, and forms that mix handler types: a document that admits more or less
 * than the server fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ALL_FIELDS,
  HANDLER_TYPE_NAMES,
  type HandlerType,
  NAME_MAX_LENGTH,
  RULE_DESCRIPTIONS,
  fieldsOf,
  typeOfField,
} from "../../sdk/client/domain/catalog";
import { openApiDocument } from "../../server";
import { TITLES } from "../../server/errors";
import { LIST_PARAMETERS } from "../../server/schemas/notification-handlers";
import { pointerSegment as escape, validatorAt } from "../support/servers/openapi-schemas";
import { URL_SAMPLES, VALID, fieldSamples, nameSamples } from "../support/request-samples";
import { seededRandom } from "../support/seeded-random";
import {
  type Answer,
  type TestServer,
  errorsOf,
  parametersOf,
  startServer,
} from "../support/servers/server-under-test";

const PATH = "/api/notification-handlers";
const ITEM_PATH = `${PATH}/{notification_handler_id}`;
const SEED = 20_240_229;
/** Requests in flight at once. */
const CONCURRENCY = 8;
/** Generated values per field, besides the fixed ones; URLs have more parts to get wrong. */
const VALUES_PER_FIELD = 6;
const VALUES_PER_URL_FIELD = 24;

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

/** A form with every field of `type`, valid. */
function validForm(type: HandlerType): Record<string, string> {
  const form: Record<string, string> = { name: `h ${type}`, type };
  for (const spec of fieldsOf(type)) form[spec.field] = VALID[spec.rule];
  return form;
}

/** Counts of the server's verdicts, so a check cannot pass by never meeting one side. */
interface Tally {
  accepted: number;
  refused: number;
}

/** Sends `request` and holds the server's verdict (`ok` or 400) to the document's: they must be the same. */
async function expectVerdict(
  what: unknown,
  allowed: boolean,
  ok: number,
  request: () => Promise<Answer>,
  tally?: Tally,
): Promise<Answer> {
  const answer = await request();
  expect([what, answer.status]).toEqual([what, allowed ? ok : 400]);
  if (tally !== undefined) tally[answer.status === ok ? "accepted" : "refused"] += 1;
  return answer;
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

/** Creates a valid handler of `type`; its id. */
async function createHandler(type: HandlerType): Promise<number> {
  const answer = await server.call("POST", PATH, { key, form: validForm(type) });
  expect(answer.status).toBe(201);
  return (answer.json as { data: { id: number } }).data.id;
}

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
    const allowed = formValidator(ITEM_PATH);
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

describe("form values of every field of the catalog", () => {
  it("are accepted on create and update exactly when the document accepts them", async () => {
    const random = seededRandom(SEED + 100);
    const create = formValidator(PATH);
    const update = formValidator(ITEM_PATH);
    const requests: Array<{ type: HandlerType; field: string; value: string }> = [];
    for (const type of HANDLER_TYPE_NAMES) {
      for (const spec of fieldsOf(type)) {
        const isUrl = spec.rule === "http-url" || spec.rule === "https-url";
        const count = isUrl ? VALUES_PER_URL_FIELD : VALUES_PER_FIELD;
        for (const value of fieldSamples(random, spec.rule, spec.maxLength, count)) {
          requests.push({ type, field: spec.field, value });
        }
      }
    }
    const handlers = new Map<HandlerType, number>();
    for (const type of HANDLER_TYPE_NAMES) handlers.set(type, await createHandler(type));
    const tallies = new Map<string, Tally>();
    await each(requests, async ({ type, field, value }) => {
      const tally = tallies.get(field) ?? { accepted: 0, refused: 0 };
      tallies.set(field, tally);
      const created = { ...validForm(type), [field]: value };
      await expectVerdict(["create", created], create(created), 201, () =>
        server.call("POST", PATH, { key, urlencoded: created }),
      );
      // To a handler of the field's own type: the rule on the stored type holds, so only the value decides.
      const changed = { [field]: value };
      await expectVerdict(
        ["update", type, changed],
        update(changed),
        200,
        () => server.call("POST", `${PATH}/${handlers.get(type)}`, { key, urlencoded: changed }),
        tally,
      );
    });
    for (const [field, { accepted, refused }] of tallies) {
      expect([field, accepted > 0, refused > 0]).toEqual([field, true, true]);
    }
  });

  it("names and is_enabled: accepted exactly when the document accepts them", async () => {
    const create = formValidator(PATH);
    const update = formValidator(ITEM_PATH);
    const id = await createHandler("email");
    const names = nameSamples(seededRandom(SEED + 101), NAME_MAX_LENGTH, 30).map((value) => ({
      value,
      field: "name",
    }));
    const enabled = [
      "1",
      "0",
      "true",
      "FALSE",
      " TrUe ",
      "\u00a0false\u2029",
      "yes",
      "2",
      "",
      "t",
      "01",
      " ",
    ];
    const samples = [...names, ...enabled.map((value) => ({ value, field: "is_enabled" }))];
    const tally = { accepted: 0, refused: 0 };
    await each(samples, async (sample) => {
      const created = { ...validForm("email"), [sample.field]: sample.value };
      await expectVerdict(["create", created], create(created), 201, () =>
        server.call("POST", PATH, { key, urlencoded: created }),
      );
      const changed = { [sample.field]: sample.value };
      await expectVerdict(
        ["update", changed],
        update(changed),
        200,
        () => server.call("POST", `${PATH}/${id}`, { key, urlencoded: changed }),
        tally,
      );
    });
    expect(tally.accepted).toBeGreaterThan(10);
    expect(tally.refused).toBeGreaterThan(10);
  });

  it("type: each spelling accepted exactly when the document accepts it", async () => {
    const create = formValidator(PATH);
    const update = formValidator(ITEM_PATH);
    const spellings = (type: string) => [
      type,
      ` ${type}\t`,
      `\u3000${type}\n`,
      type.toUpperCase(),
      `${type}s`,
      "",
    ];
    const samples = HANDLER_TYPE_NAMES.flatMap((type) =>
      spellings(type).map((spelled) => ({ type, spelled })),
    );
    const handlers = new Map<HandlerType, number>();
    for (const type of HANDLER_TYPE_NAMES) handlers.set(type, await createHandler(type));
    await each(samples, async ({ type, spelled }) => {
      const created = { ...validForm(type), type: spelled };
      await expectVerdict(["create", created], create(created), 201, () =>
        server.call("POST", PATH, { key, urlencoded: created }),
      );
      // No spelling here names another type, so none switches the handler.
      const changed = { type: spelled };
      await expectVerdict(["update", type, changed], update(changed), 200, () =>
        server.call("POST", `${PATH}/${handlers.get(type)}`, { key, urlencoded: changed }),
      );
    });
  });
});

describe("URL values", () => {
  it("at the rule's edges: accepted as the document says and stored trimmed, else refused as any bad URL", async () => {
    // Hosts in Unicode or percent-escaped, tabs, line breaks and control characters in and around
    // the URL: the parser takes each, the rule does not, and the document says which.
    const create = formValidator(PATH);
    const specs = ALL_FIELDS.filter((f) => f.rule === "http-url" || f.rule === "https-url");
    const requests = specs.flatMap((spec) => URL_SAMPLES.map((value) => ({ spec, value })));
    const tally = { accepted: 0, refused: 0 };
    await each(requests, async ({ spec, value }) => {
      const type = typeOfField(spec.field) as HandlerType;
      const form = { ...validForm(type), [spec.field]: value };
      const answer = await expectVerdict(["create", form], create(form), 201, () =>
        server.call("POST", PATH, { key, urlencoded: form }),
      );
      if (answer.status !== 201) {
        expect([value, errorsOf(answer)]).toEqual([
          value,
          [
            {
              title: TITLES.invalidField,
              status: 400,
              detail: `${spec.field} ${RULE_DESCRIPTIONS[spec.rule]}.`,
              source: { parameter: spec.field },
            },
          ],
        ]);
        tally.refused += 1;
        return;
      }
      const { id } = (answer.json as { data: { id: number } }).data;
      const read = await server.call("GET", `${PATH}/${id}`, { key });
      const settings = (read.json as { data: { settings: Record<string, string> } }).data.settings;
      expect([value, settings[spec.field]]).toEqual([value, value.trim()]);
      tally.accepted += 1;
    });
    expect(tally.accepted).toBeGreaterThan(10);
    expect(tally.refused).toBeGreaterThan(100);
  });
});

describe("the list's query parameters", () => {
  /** Values to try for each parameter the server reads; a new one does not compile without its own. */
  const VALUES: Record<(typeof LIST_PARAMETERS)[number], readonly string[]> = {
    search: ["", "ops", "%", "_", " ", "\u{1F600}"],
    search_by: ["name", "Name", "name ", "", "type"],
    is_enabled: ["1", "0", "true", " FALSE ", "\u2028true", "yes", "", "2"],
    type: [...HANDLER_TYPE_NAMES, " email", "Email", "", "fax"],
    datetime_field: ["datetime", "last_datetime", "Datetime", "", "name"],
    datetime_start: ["2024-01-01 00:00:00", "2024-02-30 00:00:00", "2024-01-01", ""],
    datetime_end: ["2024-12-31 23:59:59", "2024-12-31 24:00:00", "2024-12-31T23:59:59Z"],
    order_by: ["notification_handler_id", "datetime", "last_datetime", "name", "Name", "id", ""],
    order_type: ["ASC", "desc", "DeSc", "a\u017Fc", "asc ", "ascending", ""],
    results_per_page: ["10", "25", "50", "100", "250", "500", "1000", "010", "11", "0", "25 ", ""],
    page: [
      "1",
      "2",
      "007",
      "0",
      "",
      "-1",
      "+1",
      "1.0",
      "1e3",
      "9007199254740991",
      "9007199254740992",
      "0000000000000001",
      "00000000000000001",
    ],
  };
  const listed = paths[PATH]?.["get"]?.["parameters"] as Json[];

  it("are the parameters the server reads", () => {
    expect(listed.map((p) => p["name"]).sort()).toEqual([...LIST_PARAMETERS].sort());
  });

  it("each value accepted exactly when the document accepts it; others, and repeats, refused", async () => {
    const requests = [
      ...Object.entries(VALUES).flatMap(([name, values]) =>
        values.map((value) => ({
          query: new URLSearchParams({ [name]: value }),
          allowed: queryParameterValidator(name)(value),
        })),
      ),
      // Not in the document's list, or given twice: a 400, as the operation's description says.
      ...["foo", "Search", "page[]", "order", ""].map((name) => ({
        query: new URLSearchParams({ [name]: "1" }),
        allowed: false,
      })),
      {
        query: new URLSearchParams([
          ["type", "email"],
          ["type", "email"],
        ]),
        allowed: false,
      },
    ];
    const tally = { accepted: 0, refused: 0 };
    await each(requests, async ({ query, allowed }) => {
      await expectVerdict(
        query.toString(),
        allowed,
        200,
        () => server.call("GET", `${PATH}?${query.toString()}`, { key }),
        tally,
      );
    });
    expect(tally.accepted).toBeGreaterThan(30);
    expect(tally.refused).toBeGreaterThan(30);
  });
});

describe("the path's id", () => {
  it("reads a handler under exactly the spellings the document allows; any other is a 404", async () => {
    const id = await createHandler("email");
    const validate = validatorAt("/components/parameters/NotificationHandlerId/schema");
    const spellings = [`${id}`, `0${id}`, `+${id}`, `${id}.0`, `${id}.`, `${id}e0`, `0x${id.toString(16)}`];
    const beyond = ["9007199254740992", "99999999999999999", "0"];
    await each([...spellings, ...beyond], async (spelled) => {
      const answer = await server.call("GET", `${PATH}/${spelled}`, { key });
      // Only the canonical spelling of this handler's id can be allowed and name a handler.
      expect([spelled, answer.status]).toEqual([spelled, validate(spelled) ? 200 : 404]);
    });
  });
});

describe("content types", () => {
  it("accepts the two form types in any case and with parameters; refuses others with a 415", async () => {
    const form = new URLSearchParams(validForm("email")).toString();
    const declared = Object.keys((paths[PATH]?.["post"]?.["requestBody"] as Json)["content"] as Json);
    const types = [
      "application/x-www-form-urlencoded",
      "APPLICATION/X-WWW-FORM-URLENCODED",
      "application/x-www-form-urlencoded; charset=utf-8",
      "text/plain",
      "application/json",
      "application/x-www-form-urlencoded-x",
    ];
    for (const contentType of types) {
      const mediaType = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
      const answer = await server.call("POST", PATH, {
        key,
        body: form,
        headers: { "content-type": contentType },
      });
      expect([contentType, answer.status]).toEqual([contentType, declared.includes(mediaType) ? 201 : 415]);
    }
    // What fetch sends for a FormData: multipart with its boundary.
    expect((await server.call("POST", PATH, { key, form: validForm("email") })).status).toBe(201);
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
