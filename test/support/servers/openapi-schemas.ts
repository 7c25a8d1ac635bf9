/**
 * The OpenAPI document's schemas as validators (ajv, JSON Schema 2020-12, the formats asserted), for
 * the tests that hold the document to the server: the whole document is one schema resource, so its
 * `#/components/...` references resolve.
 */
import { Ajv2020 } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { openApiDocument } from "../../../server/openapi";

const DOCUMENT_ID = "https://openapi.invalid/notification-handlers.json";

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...openApiDocument(), $id: DOCUMENT_ID });

const validators = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer` (a JSON pointer into the document), its references resolved. */
export function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** `segment` escaped for a JSON pointer. */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
