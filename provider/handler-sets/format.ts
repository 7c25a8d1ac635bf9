/**
 * The handler-set file format (docs/handler-sets.md): a YAML mapping of resource keys to handlers in
 * the resource's own vocabulary, secrets as `{ secret: <stack config key> }`. Reading and checking
 * only, with the catalog's rules, no I/O: the `HandlerSet` component and `notification-handlers
 * validate` both check with it, so a file that validates is one the component takes.
 */
import type * as Yaml from "yaml";
import type { Node, Scalar, YAMLError } from "yaml";

import {
  type HandlerType,
  HANDLER_TYPE_NAMES,
  fieldByName,
  fieldByProperty,
  fieldViolation,
  fieldsOf,
  isHandlerType,
  nameViolation,
  typeOfField,
} from "../../sdk/client/domain/catalog";

/**
 * The YAML library, loaded on first use: a program that imports the package for
 * `NotificationHandler` alone does not pay for it at start.
 */
let loadedYaml: typeof Yaml | undefined;
function yaml(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loadedYaml ??= require("yaml") as typeof Yaml);
}

/** Where something is: a file, and a line and column in it (1-based; absent for a set given as data). */
export interface SetLocation {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
}

/** One problem: where, what (`key.field`, or empty for the file itself) and the rule it breaks. */
export interface SetProblem extends SetLocation {
  readonly path: string;
  readonly rule: string;
}

/** A field whose value is read from the stack's config as a secret. */
export interface SecretReference {
  readonly secret: string;
}

/** One handler of a set, checked. */
export interface SetEntry {
  /** The resource name. */
  readonly key: string;
  readonly at: SetLocation;
  readonly type: HandlerType;
  readonly name?: string;
  readonly isEnabled?: boolean;
  readonly adopt?: boolean | number;
  /** The key the handler had before a rename. */
  readonly was?: string;
  /** The type's fields by property: a value, or where the stack config holds it. */
  readonly fields: Readonly<Record<string, string | SecretReference>>;
  /** Where each property's value is written, for problems found later (a config key not set). */
  readonly fieldsAt: Readonly<Record<string, SetLocation>>;
}

/** What a set's sources gave: the entries, and every problem (entries are usable only without any). */
export interface SetReading {
  readonly entries: SetEntry[];
  readonly problems: SetProblem[];
}

/** One file's text. */
export interface SetSource {
  readonly file: string;
  readonly text: string;
}

/** A resource key: what the engine takes as a resource name and a reader takes for a word. */
export const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const KEY_RULE = "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit";
/** A stack config key, `name` or `namespace:name` (a namespace is a project or package name). */
export const CONFIG_KEY = /^([A-Za-z][A-Za-z0-9_.-]*:)?[A-Za-z0-9_.-]+$/;
const SECRET_RULE = "must be { secret: <stack config key> }";
/** The entry properties besides the type's fields. */
export const COMMON = ["type", "name", "isEnabled", "adopt", "was"] as const;
/** Options of the whole set, refused on an entry with a pointer to where they go. */
const SET_OPTIONS = new Set(["connection", "updateStrategy"]);

/** `FILE:LINE:COLUMN`, or the file (or label) alone. */
export function formatLocation(at: SetLocation): string {
  return at.line === undefined ? at.file : `${at.file}:${at.line}:${at.column ?? 1}`;
}

/** `FILE:LINE:COLUMN: key.field: rule`, the one way problems are printed. */
export function formatProblem(problem: SetProblem): string {
  const where = formatLocation(problem);
  return problem.path === "" ? `${where}: ${problem.rule}` : `${where}: ${problem.path}: ${problem.rule}`;
}

/** A set's problems as one message: their count, then one `FILE:LINE:COLUMN: key.field: rule` line each. */
export function describeProblems(problems: readonly SetProblem[]): string {
  const count = `${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  return `the handler set has ${count}; nothing was changed:\n${problems.map(formatProblem).join("\n")}`;
}

/** Reads and checks YAML files as one set: keys are unique across them. */
export function readSetFiles(sources: readonly SetSource[]): SetReading {
  const reader = new SetReader();
  for (const source of sources) {
    const lines = new (yaml().LineCounter)();
    const text = source.text.startsWith("\uFEFF") ? source.text.slice(1) : source.text;
    const doc = yaml().parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
    const at = (offset: number | undefined): SetLocation =>
      offset === undefined ? { file: source.file } : locationIn(source.file, lines, offset);
    const trouble = [...doc.errors, ...doc.warnings].map((e) => ({ at: e.pos[0], rule: syntaxRule(e) }));
    // Aliases would let one entry's values stand for another's unseen; each handler is written out.
    yaml().visit(doc, {
      Alias(_, alias) {
        trouble.push({ at: alias.range?.[0] ?? 0, rule: ALIAS_RULE });
      },
    });
    if (trouble.length > 0) {
      for (const { at: offset, rule } of trouble) reader.problem(at(offset), "", rule);
      continue;
    }
    reader.readDocument(doc.contents, (node) => at(node?.range?.[0]));
  }
  return reader.finish();
}

/** Checks a set given as data (`{ handlers }`); problems name `label` instead of a file. */
export function readSetData(handlers: unknown, label: string): SetReading {
  const reader = new SetReader();
  const doc = new (yaml().Document)(handlers, { aliasDuplicateObjects: false });
  reader.readDocument(doc.contents, () => ({ file: label }));
  return reader.finish();
}

const ALIAS_RULE = "anchors and aliases (&name, *name) are not supported: write each handler out in full";

/** A YAML error in the reader's words where the library's would puzzle. */
function syntaxRule(error: YAMLError): string {
  if (error.code === "MULTIPLE_DOCS") return "must hold one YAML document (no --- between handlers)";
  return error.message;
}

function locationIn(file: string, lines: Yaml.LineCounter, offset: number): SetLocation {
  const { line, col } = lines.linePos(offset);
  return { file, line, column: col };
}

/** Collects the entries and problems of a set, file by file. */
class SetReader {
  private readonly entries: SetEntry[] = [];
  private readonly problems: SetProblem[] = [];
  private readonly keys = new Map<string, SetLocation>();

  problem(at: SetLocation, path: string, rule: string): void {
    this.problems.push({ ...at, path, rule });
  }

  readDocument(contents: unknown, at: (node: Node | null | undefined) => SetLocation): void {
    if (contents === null || contents === undefined) return; // an empty file holds no handlers
    if (!yaml().isMap(contents)) {
      this.problem(at(contents as Node), "", "must be a mapping of resource keys to handlers");
      return;
    }
    for (const pair of contents.items) {
      const keyNode = pair.key as Node | null;
      const key = scalarText(keyNode);
      const where = at(keyNode);
      if (key === undefined || !KEY.test(key)) {
        this.problem(where, spelling(keyNode), `a resource key ${KEY_RULE}`);
        continue;
      }
      const earlier = this.keys.get(key);
      if (earlier !== undefined) {
        this.problem(where, key, `is defined twice (also at ${formatLocation(earlier)})`);
        continue;
      }
      this.keys.set(key, where);
      const entry = this.readEntry(key, where, pair.value as Node | null, at);
      if (entry !== undefined) this.entries.push(entry);
    }
  }

  private readEntry(
    key: string,
    where: SetLocation,
    value: Node | null,
    at: (node: Node | null | undefined) => SetLocation,
  ): SetEntry | undefined {
    if (!yaml().isMap(value)) {
      const valueAt = value === null ? where : at(value);
      this.problem(valueAt, key, "must be a mapping: type, name and the type's fields");
      return undefined;
    }
    const before = this.problems.length;
    const written = new Map<string, { node: Node | null; at: SetLocation }>();
    for (const pair of value.items) {
      const keyNode = pair.key as Node | null;
      const node = pair.value as Node | null;
      const keyAt = at(keyNode);
      const field = scalarText(keyNode) ?? spelling(keyNode);
      if (written.has(field)) this.problem(keyAt, `${key}.${field}`, "is written twice");
      else written.set(field, { node, at: node === null ? keyAt : at(node) });
    }
    const fail = (field: string, at: SetLocation, rule: string): void =>
      this.problem(at, `${key}.${field}`, rule);

    const typeWritten = written.get("type");
    const typeText = scalarText(typeWritten?.node);
    const type = isHandlerType(typeText) ? typeText : undefined;
    if (type === undefined) {
      const rule = typeWritten === undefined ? "is required: one of" : "must be one of";
      fail("type", typeWritten?.at ?? where, `${rule} ${HANDLER_TYPE_NAMES.join(", ")}`);
    }
    const own = new Set(type === undefined ? [] : fieldsOf(type).map((f) => f.property));

    const common: { name?: string; isEnabled?: boolean; adopt?: boolean | number; was?: string } = {};
    const fields: Record<string, string | SecretReference> = {};
    const fieldsAt: Record<string, SetLocation> = {};
    for (const [field, { node, at: valueAt }] of written) {
      const failHere = (rule: string): void => fail(field, valueAt, rule);
      fieldsAt[field] = valueAt;
      if (field === "type") continue;
      if (field === "name") {
        const name = scalarText(node);
        if (name === undefined) failHere("must be a string");
        else if (nameViolation(name) !== undefined) failHere(nameViolation(name)!);
        else common.name = name;
      } else if (field === "isEnabled") {
        const enabled = yaml().isScalar(node) ? node.value : undefined;
        if (typeof enabled === "boolean") common.isEnabled = enabled;
        else failHere("must be true or false");
      } else if (field === "adopt") {
        const adopt = yaml().isScalar(node) ? node.value : undefined;
        if (
          typeof adopt === "boolean" ||
          (typeof adopt === "number" && Number.isSafeInteger(adopt) && adopt > 0)
        ) {
          common.adopt = adopt;
        } else {
          failHere("must be true, false or the positive integer id of the handler to take over");
        }
      } else if (field === "was") {
        const was = scalarText(node);
        if (was === undefined || !KEY.test(was))
          failHere(`must be the handler's key before: a key ${KEY_RULE}`);
        else if (was === key) failHere("names the entry's own key");
        else common.was = was;
      } else if (own.has(field)) {
        const spec = fieldByProperty(field)!;
        if (yaml().isMap(node)) {
          const reference = secretReference(node);
          if (reference === undefined) failHere(SECRET_RULE);
          else fields[field] = reference;
        } else if (spec.secret) {
          // The value is not repeated: it is a credential that belongs in the stack's encrypted config.
          failHere(
            "is a secret and must not be written in the file: write { secret: <stack config key> } " +
              "and set the value with `pulumi config set --secret <stack config key> ...`",
          );
        } else {
          const text = scalarText(node);
          if (text === undefined) failHere("must be a string");
          else if (fieldViolation(spec, text) !== undefined) failHere(fieldViolation(spec, text)!);
          else fields[field] = text;
        }
      } else {
        fail(field, valueAt, unknownFieldRule(field, type));
      }
    }
    for (const spec of type === undefined ? [] : fieldsOf(type)) {
      if (!written.has(spec.property)) fail(spec.property, where, `is required for type ${type}`);
    }
    if (type === undefined || this.problems.length !== before) return undefined;
    return { key, at: where, type, ...common, fields, fieldsAt };
  }

  /** Checks what needs every file read (renames), and hands over the result. */
  finish(): SetReading {
    const renamed = new Map<string, string>();
    for (const entry of this.entries) {
      if (entry.was === undefined) continue;
      const at = entry.fieldsAt.was ?? entry.at;
      if (this.keys.has(entry.was)) {
        this.problem(
          at,
          `${entry.key}.was`,
          `names "${entry.was}", a key still in the set: remove one of them`,
        );
      } else if (renamed.has(entry.was)) {
        this.problem(
          at,
          `${entry.key}.was`,
          `names "${entry.was}", which "${renamed.get(entry.was)}" names too`,
        );
      } else {
        renamed.set(entry.was, entry.key);
      }
    }
    return { entries: this.problems.length === 0 ? this.entries : [], problems: this.problems };
  }
}

/**
 * A scalar's text. A plain scalar keeps its source spelling, so that `+15551234567` and `-100123`
 * stay the strings written instead of becoming numbers; `true`, `null` and the like are refused.
 */
function scalarText(node: Node | null | undefined): string | undefined {
  if (!yaml().isScalar(node)) return undefined;
  const scalar = node as Scalar & { source?: string };
  if (typeof scalar.value === "string") return scalar.value;
  if (typeof scalar.value === "number") return scalar.source ?? String(scalar.value);
  return undefined;
}

/** How a node was written, for naming it in a problem. */
function spelling(node: Node | null | undefined): string {
  if (!yaml().isScalar(node)) return "";
  const scalar = node as Scalar & { source?: string };
  return scalar.source ?? String(scalar.value);
}

function secretReference(node: Node): SecretReference | undefined {
  if (!yaml().isMap(node) || node.items.length !== 1) return undefined;
  const [pair] = node.items;
  if (!yaml().isScalar(pair!.key) || pair!.key.value !== "secret") return undefined;
  const key = scalarText(pair!.value as Node);
  return key !== undefined && CONFIG_KEY.test(key) ? { secret: key } : undefined;
}

function unknownFieldRule(field: string, type: HandlerType | undefined): string {
  if (SET_OPTIONS.has(field)) return "applies to the whole set: pass it to HandlerSet";
  if (field === "<<") return "merge keys are not supported: write each handler out in full";
  const property = fieldByProperty(field);
  if (property !== undefined)
    return `belongs to type ${typeOfField(property.field)}, not ${type ?? "this one"}`;
  const apiName = fieldByName(field);
  if (apiName !== undefined && apiName.property !== field)
    return `is the API's name: write ${apiName.property}`;
  const own = type === undefined ? [] : fieldsOf(type).map((f) => f.property);
  return `is not a field of a handler: one of ${[...COMMON, ...own].join(", ")}`;
}
