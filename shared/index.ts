/**
 * What the reference server takes from the rest of the repository, and all of it: the handler-type
 * catalog and the API's rules, which live with the client in sdk/client/ (the client, the provider
 * and the CLI import them from there), and the command-line failure convention it shares with the
 * CLI. The server's files import these names as `#shared` (server/package.json); each package's build
 * compiles what it uses into its own dist/.
 */
export * from "../sdk/client/domain/catalog";
export * from "../sdk/client/domain/cleaning";
export * from "../sdk/client/domain/list-rules";
export { anyCase, numeralUpTo } from "../sdk/client/domain/url-pattern";
export { RATE_LIMIT_WINDOW_MS } from "../sdk/client/core/rate-limit";
export { formatDatetime } from "../sdk/client/domain/resources/handler-encoding";
export { UsageError, parseCommandLine, reportFailure } from "./command-line";
