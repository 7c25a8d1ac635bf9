/**
 * The dynamic provider as the engine stores it: the `__provider` property of every
 * `NotificationHandler`, the source of a module whose `handler()` returns the provider object.
 *
 * Pulumi's `dynamic.Resource` would serialize a provider closure into that property; for this
 * provider's seven methods that is about 2.5 KB, written into the inputs and the outputs of every
 * resource, and the engine rewrites the whole state after each step. This is the same kind of module,
 * written in `./recorded-source`: one line that loads the installed package's provider by name inside
 * the dynamic-provider process. So the state holds no client, schema or credential (pulumi/pulumi#5294,
 * #18997), and the code that runs is the installed package's.
 *
 * What it relies on: the dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider/index.js`,
 * `getProvider`) runs `requireFromString(props.__provider).handler()` once per distinct string and
 * process. That module has no file name, so its `require` resolves a package name from the host's
 * working folder (the project's root folder) upward, and a relative path from that folder too; the
 * package's own name is never resolved as a self-reference there. `delete` and `read` run the string
 * the state records until a create or an update writes the handler again (docs/upgrading.md).
 */
import { recordedModule } from "./recorded-source";
import { STATE_CONTRACT } from "./state-contract";
import { NPM_PACKAGE, RUNTIME_MODULE } from "../tokens";

/** The source 0.1.0 recorded (contract 1): every release must keep the runtime's `provider`. */
export const CONTRACT_1_SOURCE = `exports.handler = () => require("${RUNTIME_MODULE}").provider;\n`;

/** What a state's source records besides its contract. */
export interface SourceRecord {
  /** The version of this package that writes the state, named in the messages. */
  version: string;
  /**
   * A folder, relative to the project's root folder and with `/` separators, from which the package
   * resolves by name when the root folder's own `node_modules` do not lead to it (a nested install).
   */
  folder?: string;
}

/** `recordedModule`'s placeholders: its parameters in capitals. */
const PLACEHOLDERS = /\b(RUNTIME|CONTRACT|VERSION)\b/g;

/**
 * The statement of `recordedModule` (`./recorded-source`) as the compiled package holds it, without
 * whitespace. A tool that rewrote the compiled code (a minifier renaming parameters) would lose the
 * placeholders: that fails here rather than record a module that cannot run.
 */
function recordedStatement(): string {
  const text = recordedModule.toString();
  const statement = text.slice(text.indexOf("{") + 1, text.lastIndexOf("}")).replace(/\s+/g, "");
  const placeholders = statement.match(PLACEHOLDERS)?.sort().join(",");
  if (placeholders !== "CONTRACT,RUNTIME,VERSION" || !/^exports\.handler=[^;]*;$/.test(statement))
    throw new Error(`${NPM_PACKAGE}'s recordedModule was rewritten after its build: ${statement}`);
  return statement;
}

/**
 * The source new states record (contract {@link STATE_CONTRACT}): the provider for its contract from
 * the copy of the package the project's root folder finds by name, or, for a nested install, the
 * first that Node's resolution finds from the root folder, then from `record.folder`. The runtime's
 * `forContract` is told the version that wrote the state, which its message names when it does not
 * read the contract. A missing package fails as Node says it (`Cannot find module`).
 *
 * It is as short as contract 1's: the engine stores it in the inputs and the outputs of every resource
 * and rewrites the whole state after each operation, so each byte costs twice per handler, every time.
 */
export function providerSource(record: SourceRecord): string {
  const runtime = JSON.stringify(RUNTIME_MODULE);
  const values: Record<string, string> = {
    RUNTIME:
      record.folder === undefined
        ? runtime
        : `require.resolve(${runtime},{paths:${JSON.stringify([".", record.folder])}})`,
    CONTRACT: String(STATE_CONTRACT),
    VERSION: JSON.stringify(record.version),
  };
  return `${recordedStatement().replace(PLACEHOLDERS, (name) => values[name] ?? name)}\n`;
}
