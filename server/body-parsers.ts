/**
 * The request bodies the service reads: multipart and urlencoded forms, each read whole under the
 * 64 KiB limit, so an oversized body of either kind is a 413 from Fastify's own reader. Any other
 * type is refused on a POST (415) and dropped elsewhere.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";

import { ApiError, BODY_LIMIT, TITLES } from "./errors";
import type { FormEntry } from "./schemas/notification-handlers";

function malformedForm(detail: string): ApiError {
  return new ApiError(400, [{ title: TITLES.malformedForm, detail }]);
}

async function parseMultipart(contentType: string, body: Buffer): Promise<FormEntry[]> {
  if (body.length === 0) return [];
  let form: FormData;
  try {
    // The body is already capped at 64 KiB, so the platform's own parser can take it whole.
    form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
  } catch {
    throw malformedForm("The multipart/form-data body could not be parsed.");
  }
  const entries: FormEntry[] = [];
  form.forEach((value, name) => {
    entries.push(typeof value === "string" ? { name, value, file: false } : { name, value: "", file: true });
  });
  return entries;
}

function parseUrlencoded(body: Buffer): FormEntry[] {
  return [...new URLSearchParams(body.toString("utf8"))].map(([name, value]) => ({
    name,
    value,
    file: false,
  }));
}

/** Installs the form parsers in place of Fastify's own. */
export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser<Buffer>(
    "multipart/form-data",
    { parseAs: "buffer", bodyLimit: BODY_LIMIT },
    (request: FastifyRequest, body: Buffer) => parseMultipart(request.headers["content-type"] ?? "", body),
  );
  app.addContentTypeParser<Buffer>(
    "application/x-www-form-urlencoded",
    { parseAs: "buffer", bodyLimit: BODY_LIMIT },
    (_request, body: Buffer, done) => done(null, parseUrlencoded(body)),
  );
  app.addContentTypeParser("*", (request, payload, done) => {
    if (request.method === "POST") {
      done(ApiError.unsupportedMediaType(request.headers["content-type"]), undefined);
    } else {
      // Reads, deletes and 405s take no body: drop it rather than refuse the request.
      payload.resume();
      done(null, undefined);
    }
  });
}
