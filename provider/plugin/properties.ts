/**
 * Property values between the engine's protobuf Structs and the plain objects the provider core
 * takes. Four shapes arrive: plain values, nested objects and arrays, unknowns (a fixed string, which
 * the core already knows as `UNKNOWN`) and secrets, an object tagged with a signature key. Secrets are
 * unwrapped for the core, which treats every value alike; what goes back is wrapped again by name.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/** The key that tags a special value in the engine's property encoding. */
const SIGNATURE_KEY = "4dabf18193072939515e22adb298388d";
/** The signature of a secret: `{ [SIGNATURE_KEY]: SECRET_SIGNATURE, value }`. */
const SECRET_SIGNATURE = "1b47061264138c4ac30d75fd1eb44270";

/** A plain object of property values. */
export type PropertyValues = Record<string, unknown>;

/** Properties decoded from a Struct, and which top-level properties held a secret (anywhere inside). */
export interface DecodedProperties {
  values: PropertyValues;
  secrets: Set<string>;
}

/** Decodes a Struct (absent: empty), unwrapping secrets; other special values are refused by name. */
export function decodeProperties(struct: Struct | undefined): DecodedProperties {
  const values: PropertyValues = {};
  const secrets = new Set<string>();
  for (const [key, raw] of Object.entries(struct?.toJavaScript() ?? {})) {
    const found = { secret: false };
    values[key] = unwrap(raw, key, found);
    if (found.secret) secrets.add(key);
  }
  return { values, secrets };
}

function unwrap(value: unknown, path: string, found: { secret: boolean }): unknown {
  if (Array.isArray(value)) return value.map((item, i) => unwrap(item, `${path}[${i}]`, found));
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  const signature = object[SIGNATURE_KEY];
  if (signature === SECRET_SIGNATURE) {
    found.secret = true;
    return unwrap(object.value, path, found);
  }
  // Assets, archives, resource references and output values: the provider asks for none of them
  // (Configure answers acceptResources and acceptOutputs false), and no property takes one.
  if (signature !== undefined) throw new Error(`${path}: this kind of value is not supported here`);
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, unwrap(v, `${path}.${k}`, found)]));
}

/** A value wrapped as a secret, to be placed anywhere in what {@link encodeProperties} takes. */
export function secret(value: unknown): Record<string, unknown> {
  return { [SIGNATURE_KEY]: SECRET_SIGNATURE, value };
}

/**
 * Encodes plain values as a Struct, wrapping the named top-level properties as secrets (those left
 * undefined are left out, as a Struct cannot hold them).
 */
export function encodeProperties(values: PropertyValues, secrets: Iterable<string> = []): Struct {
  const secretKeys = new Set(secrets);
  const encoded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    encoded[key] = secretKeys.has(key) ? secret(withoutUndefined(value)) : withoutUndefined(value);
  }
  return Struct.fromJavaScript(encoded as Record<string, never>);
}

function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutUndefined(item) ?? null);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, withoutUndefined(v)]),
  );
}
