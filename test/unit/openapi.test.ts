/** The OpenAPI description: valid OpenAPI 3.1, generated from the catalog, committed up to date. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import {
  ALL_FIELDS,
  HANDLER_TYPE_NAMES,
  fieldViolation,
  fieldsOf,
  typeOfField,
} from "../../sdk/client/catalog";
import { isDatetime } from "../../server/clock";
import { openApiDocument } from "../../server/openapi";
import { OPENAPI_FILE, openApiJson } from "../../scripts/openapi";
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

/** The update form schema of the type `field` belongs to. */
function updateFieldSchema(field: string): Json {
  return at(schemas, `Update${pascal(typeOfField(field) ?? "")}Form`, "properties", field);
}

describe("docs/openapi.json", () => {
  it("is what the generator makes now (run `npm run docs:openapi` after changing the API)", () => {
    const committed = readFileSync(join(__dirname, "..", "..", OPENAPI_FILE), "utf8");
    expect(committed === openApiJson(), `${OPENAPI_FILE} is stale: run "npm run docs:openapi"`).toBe(true);
  });

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
      expect(at(update, "properties", "type")).toEqual({ const: type });
      expect(update["required"]).toBeUndefined();
    }
    expect(at(schemas, "HandlerType")["enum"]).toEqual(HANDLER_TYPE_NAMES);
    expect(at(schemas, "UpdateForm")["anyOf"]).toEqual(
      HANDLER_TYPE_NAMES.map((t) => ({ $ref: `#/components/schemas/Update${pascal(t)}Form` })),
    );
  });

  it("marks secrets and limits lengths as the catalog does", () => {
    for (const spec of ALL_FIELDS) {
      const property = updateFieldSchema(spec.field);
      expect(property["maxLength"]).toBe(spec.maxLength);
      expect(property["x-secret"] === true).toBe(spec.secret);
    }
  });

  it("describes each field's rule so that it accepts what the catalog accepts", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const samples = [
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
    for (const spec of ALL_FIELDS) {
      const validate = ajv.compile(updateFieldSchema(spec.field));
      for (const sample of samples) {
        const catalog = fieldViolation(spec, sample) === undefined;
        expect(validate(sample), `${spec.field} = ${JSON.stringify(sample)}`).toBe(catalog);
      }
    }
  });

  it("accepts a name that is not blank, as the server does", () => {
    const validate = new Ajv2020({ strict: false }).compile(
      at(schemas, "UpdateEmailForm", "properties", "name"),
    );
    expect(["ops", " ops ", "\u00a0x"].map((n) => validate(n))).toEqual([true, true, true]);
    expect(["", " ", "\t\n", "\u00a0\ufeff"].map((n) => validate(n))).toEqual([false, false, false, false]);
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
