/**
 * The state one dynamic-provider process keeps between the engine's calls: the settings, and per
 * connection (one site and one account: the provider's configuration, or a resource's own
 * `connection`) a {@link SiteContext} with the API client (built on first use), the account snapshot
 * and its claims, the shared verifying reads and what the diffs decided. It lives in the process and is
 * never serialized. Tests build one around fake APIs.
 */
import { NotificationHandlersClient } from "../../sdk/client/client";
import { Account } from "./account";
import { Cancellation } from "./cancellation";
import {
  type Connection,
  type ProviderSettings,
  clientOptions,
  readSettings,
  requireConnection,
} from "./config";
import { UNKNOWN_CONNECTION, connectionId, describeConnection } from "./connection";
import { type Note, noteToStderr, pacingNotes } from "./diagnostics";
import type { HandlersApi } from "./handlers-api";
import type { UpdateStrategy } from "../../sdk/client/domain/settings";
import type { HandlerInputs, LiveHandler } from "./inputs";
import { DEFAULT_BATCH_WINDOW_MS, DEFAULT_MAX_WAIT_MS, ReadBack } from "./read-back";
import { CreatesInFlight } from "./recovery";

/** What a {@link ProviderContext} is built with; every part has a default for the real process. */
interface ProviderContextOptions {
  /** Builds the API of a connection (default: a `NotificationHandlersClient` with the settings' timeout). */
  api?: (connection: Connection, settings: ProviderSettings) => HandlersApi;
  note?: Note;
  /** How long a verifying read waits for others to share its list request. */
  batchWindowMs?: number;
  /** The longest a verifying read waits for writes in flight. */
  batchMaxWaitMs?: number;
}

/** A handler a diff saw: as it is live (none when gone), and the program's `ignoreChanges` then. */
export interface Replaced {
  kept?: LiveHandler | undefined;
  ignoreChanges?: readonly string[] | undefined;
}

/** One connection's state: its client, account snapshot and claims, verifying reads, replacements. */
export class SiteContext {
  /** The account snapshot and the claims of this connection. */
  readonly account: Account;
  /** The shared reads that verify this connection's writes. */
  readonly readBack: ReadBack;
  /** Creates in flight, for recoveries to wait on. */
  readonly creates = new CreatesInFlight();
  /**
   * The resources this process diffed (keyed as `./replacements` says), each with what its diff saw.
   * The engine checks and creates a replacement like a new resource, and may replace for reasons of
   * its own; adoption is for the first create only, so such a create makes a new handler whatever
   * `adopt` says, keeping the replaced one's live values of what `ignoreChanges` names.
   */
  readonly replacements = new Map<string, Replaced>();
  /** How messages name the site (never with the key). */
  readonly label: string;

  private handlers: HandlersApi | undefined;

  constructor(
    private readonly provider: ProviderContext,
    private readonly buildApi: () => HandlersApi,
    /** The connection this site was made for: a call compares with it rather than resolving it again. */
    readonly connection: Connection,
    batchWindowMs: number,
    batchMaxWaitMs: number,
  ) {
    this.label = describeConnection(connection);
    this.account = new Account(() => this.api());
    this.readBack = new ReadBack(() => this.api(), this.account, batchWindowMs, batchMaxWaitMs);
  }

  /** The API, built on first use; after a cancel it starts no write. */
  api(): HandlersApi {
    this.handlers ??= this.provider.cancellation.guardWrites(this.buildApi());
    return this.handlers;
  }

  /** Writes one diagnostic line. */
  note(message: string): void {
    this.provider.note(message);
  }

  /** The update strategy of a resource: its own, else the provider's. */
  strategyOf(inputs: HandlerInputs): UpdateStrategy {
    return this.provider.strategyOf(inputs);
  }
}

/** One provider process's state (see the module comment). */
export class ProviderContext {
  /** The configuration `configure()` read; the environment until then. */
  settings: ProviderSettings = readSettings(() => undefined);
  readonly note: Note;
  /** The engine's cancel: the clients stop retrying and no new write starts. */
  readonly cancellation = new Cancellation();

  private readonly sites = new Map<string, SiteContext>();
  /** Each connection's id by its base URL and key, hashed once: every check and diff asks. */
  private readonly connectionIds = new Map<string, string>();
  private readonly buildApi: (connection: Connection, settings: ProviderSettings) => HandlersApi;
  private readonly batchWindowMs: number;
  private readonly batchMaxWaitMs: number;

  constructor(options: ProviderContextOptions = {}) {
    this.note = options.note ?? noteToStderr;
    this.buildApi =
      options.api ??
      ((connection, settings) => clientFor(connection, settings, this.note, this.cancellation.sleep));
    this.batchWindowMs = options.batchWindowMs ?? DEFAULT_BATCH_WINDOW_MS;
    this.batchMaxWaitMs = options.batchMaxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  }

  /**
   * The state of a resource's connection, one per connection and process: its own (`explicitConnection`
   * of its inputs or outputs, which the caller reads once), else the provider's configuration (which
   * fails here, saying how, when incomplete).
   */
  site(own?: Connection | typeof UNKNOWN_CONNECTION): SiteContext {
    if (own === UNKNOWN_CONNECTION) throw new Error("the resource's connection is not known yet");
    const connection = own ?? requireConnection(this.settings);
    const raw = `${connection.baseUrl}\n${connection.apiKey}`;
    let id = this.connectionIds.get(raw);
    if (id === undefined) {
      id = connectionId(connection);
      this.connectionIds.set(raw, id);
    }
    let site = this.sites.get(id);
    if (site === undefined) {
      site = new SiteContext(
        this,
        () => this.buildApi(connection, this.settings),
        connection,
        this.batchWindowMs,
        this.batchMaxWaitMs,
      );
      this.sites.set(id, site);
    }
    return site;
  }

  /** The update strategy of a resource: its own, else the provider's. */
  strategyOf(inputs: HandlerInputs): UpdateStrategy {
    return (inputs.updateStrategy as UpdateStrategy | undefined) ?? this.settings.updateStrategy;
  }
}

function clientFor(
  connection: Connection,
  settings: ProviderSettings,
  note: Note,
  sleep: (ms: number) => Promise<void>,
): HandlersApi {
  let client: NotificationHandlersClient | undefined = undefined;
  const notePacing = pacingNotes(note, () => client?.stats);
  client = new NotificationHandlersClient({
    ...clientOptions(connection, settings),
    sleep,
    logger: { info: () => notePacing(), warn: note, error: note },
  });
  return client.notificationHandlers;
}
