/**
 * The OpenAPI description: valid OpenAPI 3.1, generated from the catalog, and its patterns deciding
 * as the server's own checks do, on many generated values (the integration test
 * server-openapi-requests sends fewer to a real server). The committed file is
 * test/unit/generated.test.ts's.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import {
  ALL_FIELDS,
  HANDLER_TYPE_NAMES,
  NAME_MAX_LENGTH,
  RULE_DESCRIPTIONS,
  URL_PATTERNS,
  type UrlRule,
  fieldViolation,
  fieldsOf,
  nameViolation,
  typeOfField,
} from "../../sdk/client/domain/catalog";
import { isDatetime } from "../../server/clock";
import { openApiDocument } from "../../server/openapi";

import { parseId } from "../../server/routes/notification-handlers";
import { parseListQuery } from "../../server/schemas/notification-handlers";
import { pointerSegment, validatorAt } from "../support/servers/openapi-schemas";
import { numeralUpTo } from "../../sdk/client/domain/url-pattern";
import {
  BLANKS,
  URL_SAMPLES,
  fieldSamples,
  nameSamples,
  textFrom,
  urlSample,
} from "../support/request-samples";
import { seededRandom } from "../support/seeded-random";

type Json = Record<string, unknown>;

/** The object at `path` inside `value`; throws when there is none, so a missing part fails loudly. */
function at(value: unknown, ...path: string[]): Json {
  let node = value;
  for (const key of path) {
    if (typeof node !== "object" || node === null) throw new Error(`nothing at ${path.join("/")}`);
    node = (node as Json)[key];
  }
  if (typeof node !== "object" || node === null) throw new Error(`no object at ${path.join("/")}`);
  return node as Json;
}

const document = openApiDocument();
const schemas = at(document, "components", "schemas");

/** `microsoft_teams` as `MicrosoftTeams`, as the document names schemas. */
function pascal(type: string): string {
  return type
    .split("_")
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

/** Where the update form of the type `field` belongs to describes it. */
function updateFieldPointer(field: string): string {
  return `/components/schemas/Update${pascal(typeOfField(field) ?? "")}Form/properties/${field}`;
}

/** The update form schema of the type `field` belongs to. */
function updateFieldSchema(field: string): Json {
  return at(schemas, `Update${pascal(typeOfField(field) ?? "")}Form`, "properties", field);
}

/** A list query parameter's schema, as a validator. */
function queryValidator(name: string) {
  const path = "/api/notification-handlers";
  const parameters = at(document, "paths", path, "get")["parameters"] as Json[];
  const index = parameters.findIndex((p) => p["name"] === name);
  return validatorAt(`/paths/${pointerSegment(path)}/get/parameters/${index}/schema`);
}

/** Holds the document's verdict on each sample to the server's: they must be the same. */
function expectSameVerdicts(
  what: string,
  samples: readonly string[],
  document: (value: string) => boolean,
  server: (value: string) => boolean,
): { accepted: number; refused: number } {
  let accepted = 0;
  for (const value of samples) {
    const taken = server(value);
    expect([what, value, document(value)]).toEqual([what, value, taken]);
    if (taken) accepted += 1;
  }
  return { accepted, refused: samples.length - accepted };
}

describe("docs/openapi.json", () => {
  it("is valid OpenAPI 3.1 with every reference resolved", async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("fails the validator when broken, so the test above means something", async () => {
    const broken = openApiDocument();
    at(broken, "paths", "/healthz", "get", "responses", "200", "content", "application/json")["schema"] = {
      $ref: "#/components/schemas/Missing",
    };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

describe("generated from the catalog", () => {
  it("has a handler, settings and create form schema for every type, with exactly its fields", () => {
    for (const type of HANDLER_TYPE_NAMES) {
      const name = pascal(type);
      const fields = fieldsOf(type).map((f) => f.field);
      expect(Object.keys(at(schemas, `${name}Settings`, "properties"))).toEqual(fields);
      expect(at(schemas, `${name}Settings`)["required"]).toEqual(fields);
      expect(at(schemas, `${name}Handler`, "properties", "type")).toEqual({ const: type });
      expect(at(schemas, `Create${name}Form`)["required"]).toEqual(["name", "type", ...fields]);
      const update = at(schemas, `Update${name}Form`);
      expect(Object.keys(at(update, "properties"))).toEqual(["name", "type", "is_enabled", ...fields]);
      expect(update["required"]).toBeUndefined();
      // The server trims `type` as it does every field.
      const typeField = validatorAt(`/components/schemas/Update${name}Form/properties/type`);
      expect([type, ` ${type}\t`, "\u00a0" + type].map((t) => typeField(t))).toEqual([true, true, true]);
      const others = HANDLER_TYPE_NAMES.filter((t) => t !== type);
      expect([...others, type.toUpperCase(), `${type}_`, ""].some((t) => typeField(t))).toBe(false);
    }
    expect(at(schemas, "HandlerType")["enum"]).toEqual(HANDLER_TYPE_NAMES);
    expect(at(schemas, "UpdateForm")["anyOf"]).toEqual(
      HANDLER_TYPE_NAMES.map((t) => ({ $ref: `#/components/schemas/Update${pascal(t)}Form` })),
    );
  });

  it("marks secrets and limits lengths as the catalog does", () => {
    for (const spec of ALL_FIELDS) {
      const property = updateFieldSchema(spec.field);
      expect((property["allOf"] as Json[])[0]).toEqual({
        $ref: `#/components/schemas/Text${spec.maxLength}`,
      });
      expect(property["x-secret"] === true).toBe(spec.secret);
      const type = typeOfField(spec.field) ?? "";
      expect(at(schemas, `${pascal(type)}Settings`, "properties", spec.field)["maxLength"]).toBe(
        spec.maxLength,
      );
    }
  });

  it("describes each field's rule so that it accepts what the catalog accepts", () => {
    const fixed = [
      "ops@example.com",
      "a.b+c@sub.example.org",
      "not an email",
      "https://hooks.example.com/T1/B2",
      "http://hooks.example.com/x",
      "ftp://example.com/",
      "https://",
      "123456:AAE-x_y",
      "123456",
      ":abc",
      "-1001234",
      "@channel_name",
      "channel",
      "+15551234567",
      "+1555",
      "15551234567",
      "s3cr3t",
      " \t ",
      "x".repeat(513),
    ];
    const random = seededRandom(20_240_301);
    for (const spec of ALL_FIELDS) {
      const samples = [...fixed, ...fieldSamples(random, spec.rule, spec.maxLength, 400)];
      const { accepted, refused } = expectSameVerdicts(
        spec.field,
        samples,
        (value) => validatorAt(updateFieldPointer(spec.field))(value),
        (value) => fieldViolation(spec, value) === undefined,
      );
      expect([spec.field, accepted > 20, refused > 20]).toEqual([spec.field, true, true]);
    }
  });

  it("accepts a name as the server does: not blank, at most its length once trimmed", () => {
    const validate = validatorAt("/components/schemas/UpdateEmailForm/properties/name");
    expect(["ops", " ops ", "\u00a0x"].map((n) => validate(n))).toEqual([true, true, true]);
    expect(["", " ", "\t\n", "\u00a0\ufeff"].map((n) => validate(n))).toEqual([false, false, false, false]);
    const samples = nameSamples(seededRandom(20_240_302), NAME_MAX_LENGTH, 400);
    expectSameVerdicts("name", samples, validate, (value) => nameViolation(value) === undefined);
  });

  it("counts a Text length as the server does: UTF-16 code units of the trimmed value", () => {
    const random = seededRandom(20_240_303);
    const alphabet = [...BLANKS, "a", "\u{1F600}", "\u{10FFFF}", "\u00e9"];
    for (const name of Object.keys(schemas).filter((n) => /^Text\d+$/.test(n))) {
      const max = Number(name.slice(4));
      const validate = validatorAt(`/components/schemas/${name}`);
      const samples = Array.from({ length: 3_000 }, () => {
        // Mostly near the limit, where counting matters.
        const core = textFrom(random, alphabet, max + 3);
        const near = random.chance(0.8) ? "a".repeat(Math.max(0, max - 4 - random.int(4))) : "";
        return random.chance(0.5) ? `${near}${core}` : `${core}${near}`;
      });
      const { accepted, refused } = expectSameVerdicts(name, samples, validate, (value) => {
        const units = value.trim().length;
        return units >= 1 && units <= max;
      });
      expect([name, accepted > 200, refused > 200]).toEqual([name, true, true]);
    }
  });

  it("names every operation, and asks for the key except on the probes and itself", () => {
    const operations = Object.entries(at(document, "paths")).flatMap(([path, item]) =>
      Object.entries(at(item))
        .filter(([method]) => ["get", "post", "delete"].includes(method))
        .map(([method, operation]) => ({ path, method, operation: at(operation) })),
    );
    expect(operations.map((o) => o.operation["operationId"])).toEqual([
      "listNotificationHandlers",
      "createNotificationHandler",
      "getNotificationHandler",
      "updateNotificationHandler",
      "deleteNotificationHandler",
      "health",
      "ready",
      "openApiDocument",
    ]);
    for (const { path, operation } of operations) {
      const open = ["/healthz", "/readyz", "/api/openapi.json"].includes(path);
      expect(operation["security"], path).toEqual(open ? [] : undefined);
      if (!open) {
        const statuses = Object.keys(at(operation, "responses"));
        expect(statuses).toEqual(expect.arrayContaining(["401", "429", "500"]));
      }
    }
    expect(document["security"]).toEqual([{ bearerAuth: [] }]);
    expect(at(document, "components", "securitySchemes", "bearerAuth")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
  });
});

describe("the URL rules", () => {
  const URL_RULES = { "http-url": ["http:", "https:"], "https-url": ["https:"] } as const;
  const rules = Object.keys(URL_RULES) as UrlRule[];
  const schemaOf = (rule: UrlRule) => at(schemas, rule === "http-url" ? "HttpUrl" : "HttpsUrl");

  it("are the document's URL patterns, blanks around the value allowed", () => {
    for (const rule of rules) {
      const source = URL_PATTERNS[rule].source;
      expect(schemaOf(rule)["pattern"]).toBe(`^\\s*(?:${source.slice(1, -1)})\\s*$`);
    }
  });

  it("leave the parser nothing to refuse: it reads every value a pattern matches as a URL of the rule", () => {
    // The rule is the pattern and the parser; the document publishes the pattern alone, so it is
    // exact only while the parser takes whatever the pattern matches.
    const random = seededRandom(20_240_306);
    const values = [...URL_SAMPLES, ...Array.from({ length: 6_000 }, () => urlSample(random).trim())];
    for (const rule of rules) {
      const read = (value: string): boolean => {
        const parsed = URL.canParse(value) ? new URL(value) : undefined;
        return (
          parsed !== undefined &&
          (URL_RULES[rule] as readonly string[]).includes(parsed.protocol) &&
          parsed.hostname !== ""
        );
      };
      const matched = values.filter((value) => URL_PATTERNS[rule].test(value));
      expect(matched.filter((value) => !read(value))).toEqual([]);
      // Both sides are met: many matches, and URLs the parser reads that the rule refuses.
      const parsedOnly = values.filter((value) => !URL_PATTERNS[rule].test(value) && read(value));
      expect([rule, matched.length > 600, parsedOnly.length > 100]).toEqual([rule, true, true]);
    }
  });

  it("refuse a host in Unicode or percent-escaped, and blanks or controls inside, as any bad URL", () => {
    const refused = [
      "https://b\u00fccher.example/",
      "https://b%C3%BCcher.example/",
      "https://hooks%2Eexample.com/",
      "https://\uff48ooks.example.com/",
      "https://hooks.exa\tmple.com/",
      "https://hooks.example.com/a\nb",
      "https://hooks.example.com/a b",
      "https://hooks.example.com/a\u0001b",
      "\u0001https://hooks.example.com/",
      "https://hooks.example.com/\u0001",
    ];
    for (const spec of ALL_FIELDS.filter((f) => f.rule === "http-url" || f.rule === "https-url")) {
      for (const value of refused) {
        // The parser alone takes each of them: the rule is what refuses.
        expect([value, URL.canParse(value.trim())]).toEqual([value, true]);
        expect([spec.field, value, fieldViolation(spec, value)]).toEqual([
          spec.field,
          value,
          RULE_DESCRIPTIONS[spec.rule],
        ]);
      }
      expect(fieldViolation(spec, " https://xn--bcher-kva.example/\t")).toBeUndefined();
    }
  });

  it("tell in the document's words that a Unicode domain goes in its punycode form", () => {
    for (const rule of rules) expect(String(schemaOf(rule)["description"])).toContain("`xn--`");
  });
});

describe("the list's parameters and the path's id", () => {
  const listTakes = (name: string) => (value: string) => parseListQuery({ [name]: [value] }).ok;

  /** Spellings of numbers: around 2^53 - 1 and 1, with leading zeros, signs, fractions, random digits. */
  function numberSamples(): string[] {
    const random = seededRandom(20_240_304);
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    const around = [0n, 1n, 2n, 9n, 10n, 99n, 100n, max - 1n, max, max + 1n, 10n ** 16n - 1n, 10n ** 16n];
    const spellings = around.flatMap((n) => [`${n}`, `0${n}`, `00${n}`, `+${n}`, `-${n}`, `${n}.0`, ` ${n}`]);
    const digits = [..."0123456789"];
    const generated = Array.from({ length: 3_000 }, () =>
      random.chance(0.2)
        ? textFrom(random, [...digits, "0", "0", "e", "."], 18)
        : textFrom(random, digits, 18),
    );
    return [...spellings, ...generated, "", "1e3", "0x10", "\u0661"];
  }

  it("take the page numbers the server takes: 1 to 2^53 - 1, up to 16 digits, leading zeros too", () => {
    expectSameVerdicts("page", numberSamples(), queryValidator("page"), listTakes("page"));
  });

  it("take the canonical ids the server reads, and nothing else", () => {
    const validate = validatorAt("/components/parameters/NotificationHandlerId/schema");
    expectSameVerdicts("id", numberSamples(), validate, (value) => parseId(value) !== undefined);
  });

  it("take the enumerated and spelled values the server takes", () => {
    const random = seededRandom(20_240_305);
    const words = ["asc", "ASC", "Desc", "a\u017Fc", "de\u017Fc", "asc ", "ascending", "", "name", "Name"];
    const spelled = [
      ...words,
      "1",
      "0",
      "TRUE",
      " false ",
      "\u00a0true\u2029",
      "yes",
      "01",
      "10",
      "010",
      "25 ",
    ];
    const letters = [..."acdeslnrtuf01 ASCDE\u017F\u0131"];
    const samples = [...spelled, ...Array.from({ length: 2_000 }, () => textFrom(random, letters, 6))];
    const parameters = (
      at(document, "paths", "/api/notification-handlers", "get")["parameters"] as Json[]
    ).map((p) => String(p["name"]));
    for (const name of parameters) {
      const typed = name === "type" ? [...HANDLER_TYPE_NAMES, " email", "Email"] : [];
      expectSameVerdicts(name, [...samples, ...typed], queryValidator(name), listTakes(name));
    }
  });

  it("bound numbers with numerals of each radix, as IPv4 addresses, ports, pages and ids need", () => {
    const bounds = [1n, 7n, 8n, 10n, 255n, 256n, 4_095n, 65_535n, 999_999n, 16_777_215n, 4_294_967_295n];
    for (const radix of [8, 10, 16] as const) {
      for (const max of bounds) {
        const numeral = new RegExp(`^${numeralUpTo(max, radix)}$`, "u");
        // Every value up to a little past max, and the values around max when it is large.
        const values = max < 70_000n ? Array.from({ length: Number(max) + 300 }, (_, i) => BigInt(i)) : [];
        for (let d = -300n; d <= 300n; d++) if (max + d >= 0n) values.push(max + d);
        const wrong = values.flatMap((value) => {
          const text = value.toString(radix);
          return [text, text.toUpperCase(), `0${text}`].filter(
            (spelled) => numeral.test(spelled) !== (value >= 1n && value <= max && !spelled.startsWith("0")),
          );
        });
        expect([radix, max, wrong]).toEqual([radix, max, []]);
      }
    }
  });

  it("rely on case mappings of ASCII letters only, and of the long s to S", () => {
    // The server upper-cases order_type and lower-cases booleans before comparing: a character whose
    // mapping is a piece of one of the words would be taken, and must be in the pattern.
    const pieces = (words: readonly string[]) => {
      const found = new Set<string>();
      for (const w of words)
        for (let i = 0; i < w.length; i++) for (let j = i + 1; j <= w.length; j++) found.add(w.slice(i, j));
      return found;
    };
    const upper = pieces(["ASC", "DESC"]);
    const lower = pieces(["true", "false", "1", "0"]);
    const mapped: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (upper.has(c.toUpperCase()) || lower.has(c.toLowerCase())) mapped.push(c);
    }
    expect(mapped).toEqual(["\u017F"]);
  });
});

describe("the Datetime pattern", () => {
  const pattern = new RegExp(String(at(schemas, "Datetime")["pattern"]), "u");
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  const { int } = seededRandom(20_240_229);

  function agrees(values: readonly string[]): { accepted: number; refused: number } {
    let accepted = 0;
    for (const value of values) {
      expect(pattern.test(value), value).toBe(isDatetime(value));
      if (isDatetime(value)) accepted += 1;
    }
    return { accepted, refused: values.length - accepted };
  }

  it("accepts exactly the dates the server's parser accepts, leap years included", () => {
    // Every month 00 to 13 and day 00 to 32 of century, leap and common years.
    const years = [0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 2400, 9996, 9999];
    const dates = years.flatMap((year) =>
      Array.from({ length: 14 * 33 }, (_, i) => {
        const time = `${pad(int(24), 2)}:${pad(int(60), 2)}:${pad(int(60), 2)}`;
        return `${pad(year, 4)}-${pad(Math.floor(i / 33), 2)}-${pad(i % 33, 2)} ${time}`;
      }),
    );
    const { accepted, refused } = agrees(dates);
    // 13 years of 365 days, and a 29 February in the 7 leap ones: 0000, 0004, 0400, 2000, 2024, 2400, 9996.
    expect(accepted).toBe(13 * 365 + 7);
    expect(refused).toBe(dates.length - accepted);
    for (const leapDay of ["2000-02-29", "2024-02-29", "0000-02-29", "1600-02-29"]) {
      expect(pattern.test(`${leapDay} 00:00:00`), leapDay).toBe(true);
    }
    for (const noDay of ["1900-02-29", "2023-02-29", "2100-02-29", "2024-02-30", "2024-04-31"]) {
      expect(pattern.test(`${noDay} 00:00:00`), noDay).toBe(false);
    }
  });

  it("agrees with the parser on random years, days and times, in range and out", () => {
    const dates = Array.from({ length: 20_000 }, () => {
      const part = (max: number, width: number) => pad(int(max), width);
      return `${part(10_000, 4)}-${part(14, 2)}-${part(33, 2)} ${part(26, 2)}:${part(62, 2)}:${part(62, 2)}`;
    });
    const { accepted, refused } = agrees(dates);
    expect(accepted).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it("refuses other shapes, as the parser does", () => {
    const shapes = [
      "2024-01-01T00:00:00",
      "2024-01-01 00:00:00Z",
      "2024-1-01 00:00:00",
      " 2024-01-01 00:00:00",
      "2024-01-01 00:00",
      "12024-01-01 00:00:00",
      "２０２４-01-01 00:00:00",
      "2024-01-01 24:00:00",
      "2024-01-01 23:60:00",
      "2024-01-01 23:59:60",
    ];
    expect(agrees(shapes)).toEqual({ accepted: 0, refused: shapes.length });
  });
});
