/**
 * Form bodies as the API takes them: `multipart/form-data` (RFC 7578), encoded at once into one buffer.
 *
 * undici sends a `FormData` as a stream, one socket write per part, which costs a create more processor
 * time than anything else it does. A buffer goes out in one write, carries its length, and is sent
 * again as is on a retry.
 * The bytes are those of the WHATWG encoding that `FormData` uses: names with `"`, CR and LF
 * percent-escaped, line breaks in names and values sent as CRLF, text as UTF-8.
 */
import { randomBytes } from "node:crypto";

/** An encoded form: the bytes and the `Content-Type` that names their boundary. */
export interface FormBody {
  readonly contentType: string;
  readonly bytes: Buffer;
}

/** Every line break (CRLF, a lone CR, a lone LF) as CRLF. */
const crlf = (text: string): string => text.replace(/\r\n|\r|\n/g, "\r\n");

const escapeName = (name: string): string =>
  crlf(name).replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");

/** Encodes text fields, in order, as one multipart/form-data body. */
export function encodeForm(fields: readonly (readonly [name: string, value: string])[]): FormBody {
  const parts = fields.map(
    ([name, value]) => `Content-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${crlf(value)}\r\n`,
  );
  // A boundary that occurs in the content would cut a part short; with 24 random hex digits that
  // does not happen by chance, and a value made to contain it gets another.
  let boundary: string;
  do boundary = `notification-handlers-${randomBytes(12).toString("hex")}`;
  while (parts.some((part) => part.includes(boundary)));
  const text = parts.map((part) => `--${boundary}\r\n${part}`).join("") + `--${boundary}--\r\n`;
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.from(text, "utf8") };
}
