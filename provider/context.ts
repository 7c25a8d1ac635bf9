/**
 * The state one dynamic-provider process keeps between the engine's calls: the settings, the API
 * client (built on first use), the account snapshot and its claims, and what the diffs decided. It
 * lives in the process and is never serialized. Tests build one around a fake API.
 */
import { NotificationHandlersClient } from "../sdk/client";
import type { NotificationHandlers } from "../sdk/resources/notification-handlers";
import { Account } from "./account";
import { type ProviderSettings, readSettings, requireConnection } from "./config";
import { type Note, noteToStderr, pacingNotes } from "./diagnostics";
import type { HandlerInputs, UpdateStrategy } from "./inputs";
import { DEFAULT_BATCH_WINDOW_MS, DEFAULT_MAX_WAIT_MS, ReadBack } from "./read-back";
import { CreatesInFlight } from "./recovery";

/** The part of the client the provider uses: `client.notificationHandlers`. */
export type HandlersApi = Pick<NotificationHandlers, "list" | "retrieve" | "create" | "update" | "delete">;

/** Retries of each request: enough to ride out a flaky server (a fifth of requests failing). */
const MAX_RETRIES = 6;

/** What a {@link ProviderContext} is built with; every part has a default for the real process. */
export interface ProviderContextOptions {
  /** Builds the API from complete settings (default: a `NotificationHandlersClient`). */
  api?: (settings: ProviderSettings) => HandlersApi;
  note?: Note;
  /** How long a verifying read waits for others to share its list request. */
  batchWindowMs?: number;
  /** The longest a verifying read waits for writes in flight. */
  batchMaxWaitMs?: number;
}

/** One provider process's state (see the module comment). */
export class ProviderContext {
  /** The configuration `configure()` read; the environment until then. */
  settings: ProviderSettings = readSettings(() => undefined);
  /** The account snapshot and the claims of this process. */
  readonly account: Account;
  /** The shared reads that verify writes. */
  readonly readBack: ReadBack;
  /** Creates in flight, for recoveries to wait on. */
  readonly creates = new CreatesInFlight();
  /**
   * The inputs of resources this process's diffs decided to replace (or found gone). The engine
   * checks and creates a replacement like a new resource; adoption is for the first create only, so
   * a create with these inputs makes a new handler whatever `adopt` says.
   */
  readonly replacements = new Set<string>();
  readonly note: Note;

  private handlers: HandlersApi | undefined;
  private readonly buildApi: (settings: ProviderSettings) => HandlersApi;

  constructor(options: ProviderContextOptions = {}) {
    this.note = options.note ?? noteToStderr;
    this.buildApi = options.api ?? ((settings) => clientFor(settings, this.note));
    this.account = new Account(() => this.api());
    this.readBack = new ReadBack(
      () => this.api(),
      this.account,
      options.batchWindowMs ?? DEFAULT_BATCH_WINDOW_MS,
      options.batchMaxWaitMs ?? DEFAULT_MAX_WAIT_MS,
    );
  }

  /** The API, built on first use from the settings (which fail here, saying how, when incomplete). */
  api(): HandlersApi {
    this.handlers ??= this.buildApi(this.settings);
    return this.handlers;
  }

  /** The update strategy of a resource: its own, else the provider's. */
  strategyOf(inputs: HandlerInputs): UpdateStrategy {
    return (inputs.updateStrategy as UpdateStrategy | undefined) ?? this.settings.updateStrategy;
  }
}

function clientFor(settings: ProviderSettings, note: Note): HandlersApi {
  const { baseUrl, apiKey } = requireConnection(settings);
  let client: NotificationHandlersClient | undefined = undefined;
  const notePacing = pacingNotes(note, () => client?.stats);
  client = new NotificationHandlersClient({
    baseURL: baseUrl,
    apiKey,
    maxRetries: MAX_RETRIES,
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
    logger: { info: () => notePacing(), warn: note, error: note },
  });
  return client.notificationHandlers;
}
