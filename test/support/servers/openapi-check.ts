/**
 * Checks the server's answers against its OpenAPI description: the operation's declared response for
 * the status, its content type, its required headers and its body schema. The server tests run
 * every answer of the reference server through it.
 */
import { openApiDocument } from "../../../server";
import { pointerSegment as escape, validatorAt } from "./openapi-schemas";

type Json = Record<string, unknown>;

const DOCUMENT = openApiDocument() as Json & {
  paths: Record<string, Record<string, Json>>;
  components: Json;
};

/** Follows a `$ref` inside the document, returning the object and its pointer. */
function resolve(value: Json, pointer: string): { value: Json; pointer: string } {
  const target = value["$ref"];
  if (typeof target !== "string") return { value, pointer };
  const path = target.replace(/^#/, "");
  let node: unknown = DOCUMENT;
  for (const segment of path.split("/").slice(1)) {
    node = (node as Json)[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return resolve(node as Json, path);
}

/** The path template of the document that `path` falls under, and the path's template key. */
function templateOf(path: string): string | undefined {
  const bare = path.split("?", 1)[0] ?? "";
  // The collection also answers with a trailing slash (the document says so in words).
  const normalized = bare === "/api/notification-handlers/" ? "/api/notification-handlers" : bare;
  return Object.keys(DOCUMENT.paths).find((template) => {
    const pattern = template
      .split("/")
      .map((s) => (s.startsWith("{") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    return new RegExp(`^${pattern}$`).test(normalized);
  });
}

/** An answer as the check needs it. */
export interface CheckedAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/**
 * The ways `answer` to `method path` departs from the document; empty when it conforms. An answer to
 * a method or path the document does not have must still be an `Error`.
 */
export function specProblems(method: string, path: string, answer: CheckedAnswer): string[] {
  const problems: string[] = [];
  const template = templateOf(path);
  const verb = method.toUpperCase() === "HEAD" ? "get" : method.toLowerCase();
  const operation = template === undefined ? undefined : DOCUMENT.paths[template]?.[verb];
  const hasBody = method.toUpperCase() !== "HEAD" && answer.status !== 204;

  if (operation === undefined || template === undefined) {
    if (answer.status < 400) problems.push(`${answer.status} to an operation the document does not have`);
    if (hasBody) checkBody("/components/schemas/Error", answer, problems);
    return problems;
  }
  const responses = operation["responses"] as Record<string, Json>;
  const declared = responses[String(answer.status)] ?? responses["default"];
  if (declared === undefined) {
    // 405 answers a method the path does not allow, which is no operation of the document.
    if (answer.status !== 405) problems.push(`status ${answer.status} is not declared`);
    if (hasBody) checkBody("/components/schemas/Error", answer, problems);
    return problems;
  }
  const pointer = `/paths/${escape(template)}/${verb}/responses/${answer.status}`;
  const { value: response, pointer: responsePointer } = resolve(declared, pointer);

  for (const [name, header] of Object.entries((response["headers"] ?? {}) as Record<string, Json>)) {
    if (resolve(header, "").value["required"] === true && !answer.headers.has(name)) {
      problems.push(`required header ${name} is missing`);
    }
  }
  const content = response["content"] as Record<string, Json> | undefined;
  if (!hasBody) return problems;
  if (content === undefined) {
    if (answer.text !== "") problems.push("a body where the document declares none");
    return problems;
  }
  const type = answer.headers.get("content-type")?.split(";", 1)[0]?.trim() ?? "";
  if (content[type] === undefined) {
    problems.push(`content type ${type || "(none)"} is not declared`);
    return problems;
  }
  checkBody(`${responsePointer}/content/${escape(type)}/schema`, answer, problems);
  return problems;
}

function checkBody(pointer: string, answer: CheckedAnswer, problems: string[]): void {
  const validate = validatorAt(pointer);
  if (!validate(answer.json)) {
    const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath} ${e.message ?? ""}`);
    problems.push(`body does not match ${pointer}: ${errors.join("; ")}`);
  }
}

/** Throws when `answer` departs from the document, naming the request and the problems. */
export function assertMatchesSpec(method: string, path: string, answer: CheckedAnswer): void {
  const problems = specProblems(method, path, answer);
  if (problems.length > 0) {
    throw new Error(
      `${method} ${path} -> ${answer.status} departs from docs/openapi.json: ${problems.join("; ")}`,
    );
  }
}
