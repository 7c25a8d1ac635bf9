/** The OpenAPI description: valid OpenAPI 3.1, generated from the catalog, committed up to date. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ALL_FIELDS, HANDLER_TYPE_NAMES, fieldViolation, fieldsOf } from "../../sdk/catalog";
import { openApiDocument } from "../../server/openapi";
import { OPENAPI_FILE, openApiJson } from "../../scripts/openapi";

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
      const name = type
        .split("_")
        .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
        .join("");
      const fields = fieldsOf(type).map((f) => f.field);
      expect(Object.keys(at(schemas, `${name}Settings`, "properties"))).toEqual(fields);
      expect(at(schemas, `${name}Settings`)["required"]).toEqual(fields);
      expect(at(schemas, `${name}Handler`, "properties", "type")).toEqual({ const: type });
      expect(at(schemas, `Create${name}Form`)["required"]).toEqual(["name", "type", ...fields]);
    }
    expect(at(schemas, "HandlerType")["enum"]).toEqual(HANDLER_TYPE_NAMES);
    expect(Object.keys(at(schemas, "UpdateForm", "properties"))).toEqual([
      "name",
      "type",
      "is_enabled",
      ...ALL_FIELDS.map((f) => f.field),
    ]);
  });

  it("marks secrets and limits lengths as the catalog does", () => {
    for (const spec of ALL_FIELDS) {
      const property = at(schemas, "UpdateForm", "properties", spec.field);
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
      "x".repeat(513),
    ];
    for (const spec of ALL_FIELDS) {
      const validate = ajv.compile(at(schemas, "UpdateForm", "properties", spec.field));
      for (const sample of samples) {
        const catalog = fieldViolation(spec, sample) === undefined;
        expect(validate(sample), `${spec.field} = ${JSON.stringify(sample)}`).toBe(catalog);
      }
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
