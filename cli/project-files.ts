/**
 * The files of an exported project, rendered from an {@link ExportPlan}: `Pulumi.yaml`,
 * `package.json`, `tsconfig.json`, `.gitignore`, `index.ts` and a README, and in the YAML format
 * `handlers.yaml`, a handler set that `index.ts` declares. Pure: the same account gives the same
 * files, and no secret value can reach them (the plan's secrets are not read here).
 */
import { Document, isMap, isScalar, visit } from "yaml";

import type { ExportPlan, ExportedHandler } from "./export-plan";
import { CONFIG_KEYS } from "../provider/config";
import { markdownText as cell } from "./markdown";
import { type StrategyChoice, strategyCommand, strategyReason } from "./update-strategy";

/** How the handlers are written: as TypeScript resources, or as a YAML handler set. */
export type ExportFormat = "typescript" | "yaml";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["typescript", "yaml"];

/** The handler set's file in a project exported as YAML. */
const HANDLERS_FILE = "handlers.yaml";
/** Where editors find the set's schema: in the package, once the project is installed. */
const SCHEMA_LINE =
  "# yaml-language-server: $schema=./node_modules/pulumi-notification-handlers/docs/handler-set.schema.json";

/** What the files say beyond the plan. */
interface ProjectOptions {
  /** Default: `typescript`. */
  readonly format?: ExportFormat;
  /** The Pulumi project name. */
  readonly project: string;
  /** The site the handlers were read from (not a secret: it goes into the README and stack config). */
  readonly baseUrl: string;
  /** The npm spec of this package in the project's `package.json`. */
  readonly packageSpec: string;
  /** The stack the command made and configured, if it did. */
  readonly stack?: string | undefined;
  /** The provider's update strategy for this site, and why. */
  readonly updateStrategy: StrategyChoice;
}

/** File name to content. */
type ProjectFiles = Record<string, string>;

/** The `@pulumi/pulumi` range a new project installs (the version this package is built and tested with). */
const PULUMI_RANGE = "^3.259.0";

/** Renders every file of the project. */
export function renderProject(plan: ExportPlan, options: ProjectOptions): ProjectFiles {
  return {
    "Pulumi.yaml": pulumiYaml(plan, options),
    "package.json": `${JSON.stringify(packageJson(options), null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    ".gitignore": "node_modules/\nbin/\n",
    ...(options.format === "yaml"
      ? { "index.ts": HANDLER_SET_INDEX, [HANDLERS_FILE]: handlersYaml(plan) }
      : { "index.ts": indexTs(plan) }),
    "README.md": readme(plan, options),
  };
}

/** A Pulumi project name from a folder name: letters, digits, `-`, `_` and `.`, starting with a letter. */
export function projectNameOf(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z]+|-+$/g, "");
  return name === "" ? "notification-handlers" : name.slice(0, 100);
}

function pulumiYaml(plan: ExportPlan, options: ProjectOptions): string {
  const description = `${plan.handlers.length} notification handlers of ${new URL(options.baseUrl).host}, exported from its API`;
  return `name: ${options.project}\nruntime: nodejs\ndescription: ${JSON.stringify(description)}\n`;
}

function packageJson(options: ProjectOptions): unknown {
  return {
    name: options.project,
    private: true,
    main: "index.ts",
    dependencies: {
      "@pulumi/pulumi": PULUMI_RANGE,
      "pulumi-notification-handlers": options.packageSpec,
    },
    devDependencies: { "@types/node": "^24.0.0", typescript: "^5.9.0" },
  };
}

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "ES2022",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    forceConsistentCasingInFileNames: true,
    skipLibCheck: true,
  },
  files: ["index.ts"],
};

function indexTs(plan: ExportPlan): string {
  const lines = [
    "// Exported by `notification-handlers export`. Each resource takes over its handler (`adopt` with",
    "// the handler's id), so the first `pulumi up` creates and deletes nothing in the account. Secret",
    "// values are read from the stack's encrypted config; none is written in this file.",
    ...(plan.secrets.length > 0 ? ['import * as pulumi from "@pulumi/pulumi";'] : []),
    'import { NotificationHandler } from "pulumi-notification-handlers";',
    "",
  ];
  if (plan.secrets.length > 0) lines.push("const config = new pulumi.Config();", "");
  for (const handler of plan.handlers) lines.push(...resourceTs(handler), "");
  lines.push("/** The handlers' ids in the API, by resource name. */");
  if (plan.handlers.length === 0) {
    lines.push("export const handlerIds = {};");
  } else {
    lines.push("export const handlerIds = {");
    for (const h of plan.handlers)
      lines.push(`  ${JSON.stringify(h.resourceName)}: ${h.variable}.handlerId,`);
    lines.push("};");
  }
  return `${lines.join("\n")}\n`;
}

const HANDLER_SET_INDEX = `// Exported by \`notification-handlers export --format yaml\`. ${HANDLERS_FILE} holds the handlers; each
// takes over its handler (\`adopt\` with the handler's id), so the first \`pulumi up\` creates and
// deletes nothing in the account. Secret values are read from the stack's encrypted config.
import { HandlerSet } from "pulumi-notification-handlers";

const set = new HandlerSet("handlers", { files: [${JSON.stringify(HANDLERS_FILE)}] });

/** The handlers' ids in the API, by resource name. */
export const handlerIds = Object.fromEntries(
  Object.entries(set.handlers).map(([key, handler]) => [key, handler.handlerId]),
);
`;

/** The handler set: one entry per handler, keyed by its resource name, secrets as config references. */
function handlersYaml(plan: ExportPlan): string {
  const entries = Object.fromEntries(
    plan.handlers.map((handler) => [
      handler.resourceName,
      {
        type: handler.type,
        name: handler.name,
        ...Object.fromEntries(
          handler.fields.map((f) => [
            f.spec.property,
            f.kind === "secret" ? { secret: f.configKey } : f.value,
          ]),
        ),
        ...(handler.isEnabled ? {} : { isEnabled: false }),
        adopt: handler.id,
      },
    ]),
  );
  const doc = new Document(entries);
  // `{ secret: key }` on one line, as a person writes it.
  visit(doc, {
    Map(_, node) {
      if (isMap(node) && node.items.length === 1 && node.get("secret") !== undefined) node.flow = true;
    },
  });
  // A blank line between handlers.
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items.slice(1)) if (isScalar(pair.key)) pair.key.spaceBefore = true;
  }
  doc.commentBefore = ` ${SCHEMA_LINE.slice(2)}\n Exported by \`notification-handlers export\`; the keys are resource names.`;
  return doc.toString({ lineWidth: 0 });
}

function resourceTs(handler: ExportedHandler): string[] {
  const lines = [
    `const ${handler.variable} = new NotificationHandler(${JSON.stringify(handler.resourceName)}, {`,
  ];
  lines.push(`  type: ${JSON.stringify(handler.type)},`);
  lines.push(`  name: ${JSON.stringify(handler.name)},`);
  for (const field of handler.fields) {
    const value =
      field.kind === "secret"
        ? `config.requireSecret(${JSON.stringify(field.configKey)})`
        : JSON.stringify(field.value);
    lines.push(`  ${field.spec.property}: ${value},`);
  }
  if (!handler.isEnabled) lines.push("  isEnabled: false,");
  lines.push(`  adopt: ${handler.id},`, "});");
  return lines;
}

/**
 * The commands that make a stack and put the connection, the update strategy (when not the default)
 * and every secret into its config.
 */
export function configCommands(
  plan: ExportPlan,
  baseUrl: string,
  strategy: StrategyChoice,
  stack = "dev",
): string[] {
  return [
    `pulumi stack init ${stack}`,
    `pulumi config set ${CONFIG_KEYS.baseUrl} ${baseUrl}`,
    ...strategyCommand(strategy),
    `pulumi config set --secret ${CONFIG_KEYS.apiKey}   # prompts for the API key`,
    ...plan.secrets.map(
      (s) =>
        `pulumi config set --secret ${s.configKey}   # prompts for the ${s.property} of handler ${s.handlerId}`,
    ),
  ];
}

function readme(plan: ExportPlan, options: ProjectOptions): string {
  const rows = plan.handlers.map((h) => {
    const secrets = h.fields
      .filter((f) => f.kind === "secret")
      .map((f) => (f.kind === "secret" ? `\`${f.configKey}\`` : ""));
    return `| \`${h.resourceName}\` | ${h.id} | ${h.type} | ${cell(h.name)} | ${h.isEnabled ? "yes" : "no"} | ${secrets.join(", ")} |`;
  });
  const configured =
    options.stack === undefined
      ? [
          "The stack is not made yet. Make it and set its config: the connection, the update strategy when it",
          "is not the default, and the secrets, encrypted; each `--secret` command without a value prompts for",
          "it, so no secret lands in the shell's history (or run the export again with `--stack NAME`, which",
          "sets them all from the account):",
          "",
          "```sh",
          "export PULUMI_CONFIG_PASSPHRASE=...   # with a local backend: the key of the stack's secrets",
          ...configCommands(plan, options.baseUrl, options.updateStrategy),
          "```",
        ]
      : [
          `The stack \`${options.stack}\` was made by the export, with the base URL, the update strategy, the API`,
          "key and every secret below in its config, the secrets encrypted (`Pulumi." +
            options.stack +
            ".yaml` holds only ciphertext for them; commit it).",
        ];
  const skipped =
    plan.skipped.length === 0
      ? []
      : [
          "",
          "## Not exported",
          "",
          "| id | name | why |",
          "| --- | --- | --- |",
          ...plan.skipped.map((s) => `| ${s.id} | ${cell(s.name)} | ${cell(s.reason)} |`),
        ];
  return [
    `# ${options.project}`,
    "",
    ...(options.format === "yaml"
      ? [
          `The notification handlers of ${options.baseUrl}, as data: ${plan.handlers.length} handlers in \`${HANDLERS_FILE}\`,`,
          "a handler set, each taking over its handler by id (`adopt`), so the first `pulumi up` changes",
          "nothing in the account and every later change is a reviewed diff of the file. Check the file",
          `before a preview with \`npx notification-handlers validate ${HANDLERS_FILE}\`.`,
        ]
      : [
          `The notification handlers of ${options.baseUrl}, as code: ${plan.handlers.length} \`NotificationHandler\``,
          "resources, each taking over its handler by id (`adopt`), so the first `pulumi up` changes nothing in",
          "the account and every later change is a reviewed diff.",
        ]),
    "",
    "## Handlers",
    "",
    "| resource | id | type | name | enabled | secrets in stack config |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    ...skipped,
    "",
    "## Update strategy",
    "",
    ...strategySection(options),
    "",
    "## Run it",
    "",
    ...configured,
    "",
    "Then install the project and take the handlers over:",
    "",
    "```sh",
    "npm install",
    "pulumi preview            # every resource shows as created: each takes over its handler",
    "pulumi up --yes           # creates and deletes nothing in the account",
    "pulumi preview --expect-no-changes",
    "```",
    "",
  ].join("\n");
}

/** Which strategy the project runs with, why, and where it is set. */
function strategySection(options: ProjectOptions): string[] {
  const choice = options.updateStrategy;
  const where =
    options.stack !== undefined
      ? `The stack's config sets \`${CONFIG_KEYS.updateStrategy}\` to it.`
      : choice.strategy === "in-place"
        ? "It is the provider's default: a new stack needs no setting for it."
        : "The commands below set it in the stack's config.";
  return [
    `Changes are made \`${choice.strategy}\`: ${strategyReason(choice)}.`,
    where,
    "",
    "With `replace`, a change creates a new handler and then deletes the old one (its id changes); with",
    "`in-place`, the handler is updated. To choose the other one later:",
    "",
    "```sh",
    `pulumi config set ${CONFIG_KEYS.updateStrategy} ${choice.strategy === "replace" ? "in-place" : "replace"}`,
    "```",
  ];
}
