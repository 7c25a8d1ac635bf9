/**
 * The reference server for a benchmark: started in this process, with one user, one API key and
 * many handlers of every type written straight into the repository (not through the API, which
 * would take longer than the measurements themselves).
 */
import type { AddressInfo } from "node:net";
import { HANDLER_TYPE_NAMES, type FieldRule, fieldsOf } from "../sdk/client/domain/catalog";
import { formatDatetime } from "../sdk/client/domain/resources/handler-encoding";
import { buildApp, openSqliteRepository } from "../server";

/** A listening server and what a client needs to call it. */
interface BenchServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly baseURL: string;
  readonly apiKey: string;
  /** The ids of the seeded handlers, ascending. */
  readonly ids: readonly number[];
  /** Stops listening and closes the database. */
  close(): Promise<void>;
}

/** A valid value for a field of each rule, distinct per handler so answers are not all alike. */
function sampleValue(rule: FieldRule, field: string, n: number): string {
  switch (rule) {
    case "email":
      return `oncall-${n}@example.com`;
    case "http-url":
    case "https-url":
      return `https://hooks.example.com/${field}/${n}/T0123456789abcdef`;
    case "telegram-token":
      return `${100_000 + n}:AAH${n}-benchmark_token`;
    case "telegram-chat-id":
      return `-100${n}`;
    case "non-empty":
      return `${field}-${n}-Zk3q9LmXw2`;
    case "phone":
      return `+1555${String(n % 10_000_000).padStart(7, "0")}`;
  }
}

/**
 * Starts the server with `count` handlers cycling through every catalog type, one in five disabled.
 * The database is in memory: the repository offers no batch insert and commits each row on its own,
 * and a file database syncs every commit to disk (synchronous=FULL), which would make seeding take
 * far longer than the benchmark. Reads, which are what is measured, do not depend on the difference.
 */
export async function startBenchServer(count: number): Promise<BenchServer> {
  const repository = openSqliteRepository(":memory:");
  try {
    const now = formatDatetime(new Date());
    const userId = await repository.ensureUser("bench", now);
    const apiKey = await repository.createApiKey(userId, now);
    const ids: number[] = [];
    for (let n = 0; n < count; n++) {
      const type = HANDLER_TYPE_NAMES[n % HANDLER_TYPE_NAMES.length] ?? "email";
      const settings = Object.fromEntries(
        fieldsOf(type).map((spec) => [spec.field, sampleValue(spec.rule, spec.field, n)]),
      );
      const record = await repository.createHandler(
        userId,
        { type, name: `Bench ${type} ${n}`, settings, isEnabled: n % 5 !== 0 },
        now,
      );
      ids.push(record.id);
    }

    // No rate limit: the benchmark measures transport and parsing, not pacing waits.
    const app = buildApp({ repository, rateLimit: 0 });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return {
      baseURL: `http://127.0.0.1:${port}/`,
      apiKey,
      ids,
      close: async () => {
        // The app was given the repository, so it leaves it open: close it after the server.
        await app.close();
        await repository.close();
      },
    };
  } catch (error) {
    await repository.close();
    throw error;
  }
}
