/**
 * The answers of deployed instances (docs/api.md#deployed, "Writes" and "Reads"): the handler as each
 * version shows it, and the create, update, delete and list answers around it.
 */
import type { Presenter } from "../presenter";
import type { HandlerRecord } from "../repository";
import { deployedErrorRenderer } from "./errors";
import { deployedListEnvelope } from "./lists";
import type { EmulatedVersion } from "./versions";

// ES2023's lib has no JSON.rawJSON; Node 22 and later do. A raw JSON number keeps every digit of a
// stored whatsapp number (up to PHP_INT_MAX) in the answer, where a double would round it.
const rawJSON = (JSON as unknown as { rawJSON: (this: void, text: string) => unknown }).rawJSON;

/**
 * The settings as stored plus what deployed instances add: `email_is_confirmed`
 * (docs/api.md#deployed-settings-string), `whatsapp` as an integer
 * (docs/api.md#deployed-whatsapp-integer), and the 2026 create answer's `activation_code`
 * (docs/api.md#deployed-create-answer).
 */
function settingsView(record: HandlerRecord, withActivationCode: boolean): Record<string, unknown> {
  const settings: Record<string, unknown> = { ...record.settings };
  const whatsapp = record.settings["whatsapp"];
  if (whatsapp !== undefined && /^-?\d+$/.test(whatsapp)) settings["whatsapp"] = rawJSON(whatsapp);
  if (record.type === "email") {
    settings["email_is_confirmed"] = record.activationCode === null;
    if (withActivationCode && record.activationCode !== null)
      settings["activation_code"] = record.activationCode;
  }
  return settings;
}

/**
 * A boolean up to 2025; `0`/`1`/`2` in 2026, `2` for an enabled email handler whose address waits for
 * confirmation (docs/api.md#deployed-is-enabled-values).
 */
function enabledView(version: EmulatedVersion, record: HandlerRecord): boolean | number {
  if (version !== "2026") return record.isEnabled;
  if (!record.isEnabled) return 0;
  return record.type === "email" && record.activationCode !== null ? 2 : 1;
}

/** The handler as `version` shows it; `created` for a 2026 create answer's `activation_code`. */
function deployedHandlerView(
  version: EmulatedVersion,
  record: HandlerRecord,
  created = false,
): Record<string, unknown> {
  const settings = settingsView(record, created && version === "2026");
  return {
    id: record.id,
    // docs/api.md#deployed-extra-fields
    user_id: record.userId,
    type: record.type,
    name: record.name,
    // 2025 sends it JSON-encoded in every answer, as its create answer does
    // (docs/api.md#emulation-settings-string).
    settings: version === "2025" ? JSON.stringify(settings) : settings,
    is_enabled: enabledView(version, record),
    last_datetime: record.lastDatetime,
    datetime: record.datetime,
  };
}

/**
 * What a 2025 update answers: the handler shape with nothing in it
 * (docs/api.md#deployed-2025-update-saves-nothing).
 */
const EMPTY_2025_UPDATE_ANSWER = {
  id: null,
  type: null,
  settings: JSON.stringify({ "": "" }),
  is_enabled: null,
  user_id: null,
  name: null,
  last_datetime: null,
  datetime: null,
} as const;

/** Everything `version` answers. */
export function deployedPresenter(version: EmulatedVersion): Presenter {
  const view = (record: HandlerRecord, created = false) => deployedHandlerView(version, record, created);
  return {
    read: (record) => ({ status: 200, body: { data: view(record) } }),
    // docs/api.md#deployed-create-answer: the id in 2023, the whole handler from 2025 on.
    created: (record) => ({
      status: 201,
      body: { data: version === "2023" ? { id: record.id } : view(record, true) },
    }),
    // docs/api.md#deployed-update-answer, docs/api.md#emulation-updates: the id is the one from
    // the path, a string: 2023 answers `{"data":{"id":"N"}}`; 2026 shows the
    // damaged handler it stored (`"type":null,"settings":{"":""}`, the `is_enabled` posted, read as
    // 0 or 1); 2025 stored nothing and shows nothing.
    updated: (record) => {
      switch (version) {
        case "2023":
          return { status: 200, body: { data: { id: String(record.id) } } };
        case "2025":
          return { status: 200, body: { data: EMPTY_2025_UPDATE_ANSWER } };
        case "2026":
          return { status: 200, body: { data: { ...view(record), id: String(record.id) } } };
      }
    },
    // docs/api.md#deployed-delete-answer
    deleted: () => ({ status: 200, body: "", headers: { "content-type": "application/json" } }),
    list: (page) => ({
      status: 200,
      body: { data: page.records.map((record) => view(record)), ...deployedListEnvelope(page) },
    }),
    error: deployedErrorRenderer(version),
  };
}
