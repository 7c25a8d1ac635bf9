/**
 * The files of an exported project, rendered from an {@link ExportPlan}: `Pulumi.yaml`,
 * `package.json`, `tsconfig.json`, `.gitignore`, `index.ts` and a README, and in the YAML format
 * `handlers.yaml`, a handler set that `index.ts` declares. Pure: the same account gives the same
 * files, and no secret value can reach them (the plan's secrets are not read here).
 */
import { Document, isMap, isScalar, visit } from "yaml";

import type { ExportPlan, ExportedHandler } from "./export-plan";
import { CONFIG_KEYS, NPM_PACKAGE } from "../provider/for-cli";
import { markdownText as cell } from "./markdown";
import { type StrategyChoice, strategyCommand, strategyReason } from "./update-strategy";

/** How the handlers are written: as TypeScript resources, or as a YAML handler set. */
export type ExportFormat = "typescript" | "yaml";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["typescript", "yaml"];

/** The handler set's file in a project exported as YAML. */
const HANDLERS_FILE = "handlers.yaml";
/** Where editors find the set's schema: in the package, once the project is installed. */
const SCHEMA_LINE = `# yaml-language-server: $schema=./node_modules/${NPM_PACKAGE}/docs/handler-set.schema.json`;

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
  /**
   * Leave out `retainOnDelete: true`, so that a destroy or a resource removed from the code deletes
   * its handler. Default: false, every resource keeps its handler when it goes.
   */
  readonly fullOwnership?: boolean;
}

/** File name to content. */
type ProjectFiles = Record<string, string>;

/** The `@pulumi/pulumi` range a new project installs (the version this package is built and tested with). */
const PULUMI_RANGE = "^3.259.0";
/** The Node.js that range asks for: `@pulumi/pulumi` 3.249.0 and later need 22. */
const NODE_FLOOR = "22";

/** Renders every file of the project. */
export function renderProject(plan: ExportPlan, options: ProjectOptions): ProjectFiles {
  return {
    "Pulumi.yaml": pulumiYaml(plan, options),
    "package.json": `${JSON.stringify(packageJson(options), null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    ".gitignore": "node_modules/\nbin/\n",
    ...(options.format === "yaml"
      ? { "index.ts": handlerSetIndex(retains(options)), [HANDLERS_FILE]: handlersYaml(plan) }
      : { "index.ts": indexTs(plan, retains(options)) }),
    "README.md": readme(plan, options),
  };
}

/** Whether the program's resources keep their handlers when they go: unless `--full-ownership`. */
const retains = (options: ProjectOptions): boolean => options.fullOwnership !== true;

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
      [NPM_PACKAGE]: options.packageSpec,
    },
    devDependencies: { "@types/node": "^24.0.0", typescript: "^5.9.0" },
    engines: { node: `>=${NODE_FLOOR}` },
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

function indexTs(plan: ExportPlan, retain: boolean): string {
  const lines = [
    "// Exported by `notification-handlers export`. Each resource takes over its handler (`adopt` with",
    "// the handler's id), so the first `pulumi up` creates and deletes nothing in the account. Secret",
    "// values are read from the stack's encrypted config; none is written in this file.",
    ...(retain
      ? [
          "// `retainOnDelete: true` keeps a handler in the account when its resource goes (`pulumi destroy`,",
          "// the resource removed from here, a replacement); delete it to let this program delete the handler",
          '// (README.md, "Ownership").',
        ]
      : []),
    ...(plan.secrets.length > 0 ? ['import * as pulumi from "@pulumi/pulumi";'] : []),
    `import { NotificationHandler } from "${NPM_PACKAGE}";`,
    "",
  ];
  if (plan.secrets.length > 0) lines.push("const config = new pulumi.Config();", "");
  for (const handler of plan.handlers) lines.push(...resourceTs(handler, retain), "");
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

/**
 * The program of a project exported as YAML. The set's entries are data, so the option reaches its
 * handlers through the component: a transformation of a parent applies to each of its children.
 */
function handlerSetIndex(retain: boolean): string {
  const header = `// Exported by \`notification-handlers export --format yaml\`. ${HANDLERS_FILE} holds the handlers; each
// takes over its handler (\`adopt\` with the handler's id), so the first \`pulumi up\` creates and
// deletes nothing in the account. Secret values are read from the stack's encrypted config.
`;
  const footer = `
/** The handlers' ids in the API, by resource name. */
export const handlerIds = Object.fromEntries(
  Object.entries(set.handlers).map(([key, handler]) => [key, handler.handlerId]),
);
`;
  const files = `{ files: [${JSON.stringify(HANDLERS_FILE)}] }`;
  if (!retain) {
    return `${header}import { HandlerSet } from "${NPM_PACKAGE}";

const set = new HandlerSet("handlers", ${files});
${footer}`;
  }
  return `${header}import * as pulumi from "@pulumi/pulumi";
import { HandlerSet } from "${NPM_PACKAGE}";

// The set's handlers stay in the account when their resources go (\`pulumi destroy\`, an entry
// removed from ${HANDLERS_FILE}, a replacement); delete the \`transformations\` option below to let this
// program delete them (README.md, "Ownership").
const retainOnDelete: pulumi.ResourceTransformation = ({ props, opts }) => ({
  props,
  opts: { ...opts, retainOnDelete: true },
});

const set = new HandlerSet("handlers", ${files}, { transformations: [retainOnDelete] });
${footer}`;
}

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

function resourceTs(handler: ExportedHandler, retain: boolean): string[] {
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
  lines.push(`  adopt: ${handler.id},`, retain ? "}, { retainOnDelete: true });" : "});");
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
  const resources = plan.handlers.length + (options.format === "yaml" ? 2 : 1);
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
          "pulumi login                          # once: Pulumi Cloud, or `pulumi login file://FOLDER`",
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
    `It needs Node.js ${NODE_FLOOR} or later, which the \`@pulumi/pulumi\` it installs asks for (its \`engines\`).`,
    "",
    "Then install the project and take the handlers over. The first preview lists every resource as one",
    `to create, \`+ ${resources} to create\` (${resourceList(plan, options)}): each create takes over its`,
    "handler by id, so the up that follows writes nothing to the API, and the preview after it shows no",
    "change.",
    "",
    "```sh",
    "npm install",
    `pulumi preview                       # + ${resources} to create`,
    `pulumi up --yes                      # + ${resources} created, nothing written to the API`,
    `pulumi preview --expect-no-changes   # ${resources} unchanged`,
    "```",
    "",
    "## Ownership",
    "",
    ...ownershipSection(options),
    "",
  ].join("\n");
}

/** What the stack holds: the stack itself, the handler set's component in YAML, and each handler. */
function resourceList(plan: ExportPlan, options: ProjectOptions): string {
  const handlers = `${plan.handlers.length} ${plan.handlers.length === 1 ? "handler" : "handlers"}`;
  return options.format === "yaml"
    ? `the stack, the handler set and ${handlers}`
    : `the stack and ${handlers}`;
}

/** What a destroy, a removed resource and a replacement do to the handlers, and how to change it. */
function ownershipSection(options: ProjectOptions): string[] {
  const removed =
    options.format === "yaml"
      ? `an entry removed from \`${HANDLERS_FILE}\``
      : "a resource removed from `index.ts`";
  if (!retains(options)) {
    return [
      "The program owns its handlers (the export ran with `--full-ownership`): `pulumi destroy` deletes",
      `them from the account, and so does \`pulumi up\` after ${removed}.`,
      "To stop managing a handler and keep it, take it out of the stack's state first",
      "(`pulumi state delete <urn>`), then out of the code.",
    ];
  }
  const option =
    options.format === "yaml"
      ? ["the `transformations` option of the `HandlerSet` in `index.ts`"]
      : ["`, { retainOnDelete: true }` from each resource of `index.ts` that you hand over"];
  return [
    "Every handler has Pulumi's `retainOnDelete: true`: when its resource leaves the stack, the handler",
    `stays in the account. That is \`pulumi destroy\`, \`pulumi up\` after ${removed},`,
    "and a replacement, which keeps the old handler beside the new one (a change of type, or any change",
    "under the `replace` strategy). Previews mark these resources `[retain]`.",
    "",
    "To let this program delete its handlers, delete",
    ...option,
    "and run `pulumi up`: it shows every resource unchanged and writes nothing to the API, and records",
    "in the stack's state that they no longer retain. Until that up, a destroy still keeps them: it",
    "reads the state, not the code.",
  ];
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
