/**
 * The client's multipart/form-data bodies: read back field by field by a parser, the same bytes as
 * undici's FormData but the boundary, a fresh boundary the content does not contain.
 */
import { FormData as UndiciFormData, Response as UndiciResponse } from "undici";
import { describe, expect, it } from "vitest";

import { encodeForm } from "../../sdk/client/core/multipart";

const FIELDS: [string, string][] = [
  ["name", 'Ops <b>on-call</b> "primary" & Team\'s'],
  ["type", "webhook"],
  ["webhook", "https://hooks.example.com/a?b=1&c=2"],
  ["is_enabled", "1"],
  ["message", "line one\nline two\r\nline three\rend"],
  ["emoji", "déjà vu ✓ 🚨"],
  ["empty", ""],
  ['we"ird\nname', "x"],
];

/** What a server's multipart parser makes of a body (the platform's own, as the reference server uses). */
async function parse(body: { contentType: string; bytes: Buffer }): Promise<[string, string][]> {
  const form = await new Response(body.bytes, { headers: { "content-type": body.contentType } }).formData();
  return [...form.entries()].map(([name, value]) => [name, typeof value === "string" ? value : "(a file)"]);
}

describe("encodeForm", () => {
  it("is read back field by field, in order, by a multipart parser", async () => {
    const entries = await parse(encodeForm(FIELDS));
    expect(entries.map(([name]) => name)).toEqual([
      "name",
      "type",
      "webhook",
      "is_enabled",
      "message",
      "emoji",
      "empty",
      // The parser undoes the escapes; the line break comes back as CRLF.
      'we"ird\r\nname',
    ]);
    expect(Object.fromEntries(entries)).toMatchObject({
      name: FIELDS[0]?.[1],
      webhook: "https://hooks.example.com/a?b=1&c=2",
      message: "line one\r\nline two\r\nline three\r\nend",
      emoji: "déjà vu ✓ 🚨",
      empty: "",
    });
  });

  it("encodes the same bytes as undici's FormData, apart from the boundary", async () => {
    const ours = encodeForm(FIELDS);
    const form = new UndiciFormData();
    for (const [name, value] of FIELDS) form.append(name, value);
    const theirs = new UndiciResponse(form);
    const theirType = theirs.headers.get("content-type") ?? "";
    const theirBytes = Buffer.from(await theirs.arrayBuffer());
    const boundaryOf = (type: string): string => /boundary=(.+)$/.exec(type)?.[1] ?? "";
    const ourText = ours.bytes.toString("utf8").replaceAll(boundaryOf(ours.contentType), "B");
    const theirText = theirBytes.toString("utf8").replaceAll(boundaryOf(theirType), "B");
    expect(ourText).toBe(theirText);
    expect(ours.contentType).toMatch(/^multipart\/form-data; boundary=notification-handlers-[0-9a-f]{24}$/);
  });

  it("uses a new boundary for each body, one the content does not contain", () => {
    const a = encodeForm([["name", "x"]]);
    const b = encodeForm([["name", "x"]]);
    expect(a.contentType).not.toBe(b.contentType);
    const boundary = a.contentType.split("boundary=")[1] ?? "";
    const text = a.bytes.toString("utf8");
    expect(text.split(`--${boundary}`)).toHaveLength(3);
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it("encodes no fields as a body with only the closing boundary", async () => {
    const empty = encodeForm([]);
    expect(empty.bytes.toString("utf8")).toMatch(/^--notification-handlers-[0-9a-f]{24}--\r\n$/);
    expect(await parse(empty)).toEqual([]);
  });
});
