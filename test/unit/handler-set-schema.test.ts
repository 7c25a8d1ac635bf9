/**
 * The handler-set JSON Schema agrees with the reader on what a file may hold (the editor flags what
 * `validate` refuses, and takes what it takes); the committed file is test/unit/generated.test.ts's.
 */
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

import { readSetFiles } from "../../provider/handler-sets/format";
import { handlerSetSchema } from "../../scripts/generate/handler-set-schema";

const GOOD = `
ops-email:
  type: email
  name: Ops
  email: ops@example.com
pager:
  type: twilio
  twilio: +15551234567
  isEnabled: false
  adopt: 7
chat:
  type: telegram
  telegram: { secret: chat.telegram }
  telegramChatId: -1001234
  was: old-chat
`;

/** Files the reader refuses, each for one reason the schema must also see. */
const BAD = {
  "a plain secret": "hook:\n  type: slack\n  slack: https://hooks.slack.com/services/T/B/X\n",
  "another type's field": "ops:\n  type: email\n  email: a@example.com\n  slack: { secret: s }\n",
  "an unknown field": "ops:\n  type: email\n  email: a@example.com\n  colour: red\n",
  "a missing field": "ops:\n  type: email\n",
  "an unknown type": "ops:\n  type: pager\n",
  "a bad key": "bad key!:\n  type: internal_notification\n",
  "a bad adopt": "ops:\n  type: internal_notification\n  adopt: -1\n",
  "a bad secret reference": "hook:\n  type: slack\n  slack: { secret: s, value: x }\n",
  "a bad phone number": "pager:\n  type: twilio\n  twilio: 555-0100\n",
  "a name too long": `ops:\n  type: internal_notification\n  name: ${"n".repeat(129)}\n`,
};

describe("the handler-set schema", () => {
  const validate = new Ajv({ strict: false }).compile(handlerSetSchema());

  it("takes what the reader takes", () => {
    expect(readSetFiles([{ file: "good.yaml", text: GOOD }]).problems).toEqual([]);
    expect(validate(parse(GOOD)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(Object.entries(BAD))("flags %s, as the reader does", (_, text) => {
    expect(readSetFiles([{ file: "bad.yaml", text }]).problems).not.toEqual([]);
    expect(validate(parse(text))).toBe(false);
  });
});
