/**
 * What a refused check shows, through either provider: a program in a folder of its own, beside a user's
 * session's project, that breaks the rules with every secret field of the catalog at once, first with
 * literal values, then with values from secret config (and, through the plugin, a mistyped
 * configuration key set as a secret). Each refusal names the resource, the field and the rule, and
 * neither `pulumi preview` nor `pulumi preview --json` prints a secret's bytes or the engine's notation
 * for a property's value. The engine stops a preview at the first resource it refuses, so each
 * scenario is one resource.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { expect } from "vitest";

import { ALL_FIELDS, type FieldSpec } from "../../../sdk/client/domain/catalog";
import { storyStep } from "../story-step";
import type { UserSession } from "./user-path";

const FOLDER = "refusals";
const SECRET_FIELDS = ALL_FIELDS.filter((f) => f.secret);

/** A secret's value: distinct bytes for each field and origin, breaking its rule where it has one. */
const secretOf = (spec: FieldSpec, origin: "literal" | "config"): string =>
  `${spec.property === "webhook" || spec.property === "slack" ? "ftp" : "https"}://hooks.example.com/S3CRET-${spec.property}-${origin}`;

/** The resource's own type in each scenario; its field breaks its rule, every other one belongs elsewhere. */
const OWN_TYPE = { literal: "webhook", config: "slack" } as const;

/** The engine's ways of printing a property's value next to a failure. */
const VALUE_NOTATION = [/property \S+ value/, /\{&\{\{/, /\{<nil>\}/];

/** Runs the refusal scenarios in `s`; `provider` says which program to write. */
export async function expectRefusalsKeepSecrets(
  s: UserSession,
  provider: "plugin" | "dynamic",
): Promise<void> {
  await storyStep(
    "every secret field in a refused check: named with its rule, its value never shown",
    async () => {
      const folder = join(s.project, FOLDER);
      const write = async (origin: "literal" | "config"): Promise<void> => {
        const program = provider === "plugin" ? yamlProgram(origin) : nodeProgram(origin);
        for (const [file, text] of Object.entries(program)) await writeFile(join(folder, file), text);
      };
      await mkdir(folder, { recursive: true });
      await write("literal"); // the stack is made in the folder of its project
      const secrets: string[] = [];
      const config = SECRET_FIELDS.map((spec) => {
        secrets.push(secretOf(spec, "config"), secretOf(spec, "literal"));
        return `--secret ${configKey(spec)}='${secretOf(spec, "config")}'`;
      });
      if (provider === "plugin") {
        // The plugin's stack needs the provider's configuration; the dynamic provider's resources carry a connection.
        config.push(
          "--plaintext notification-handlers:baseUrl=http://127.0.0.1:9",
          "--secret notification-handlers:apiKey=S3CRET-apiKey",
        );
      } else {
        config.push("--secret connectionKey=S3CRET-apiKey-config");
        secrets.push("S3CRET-apiKey-config", "S3CRET-apiKey-literal");
      }
      secrets.push("S3CRET-apiKey");
      // One command for all of it: each start of the CLI, with the key it derives from the passphrase,
      // takes about half a second of CPU.
      await s.mustSh(
        `cd ${FOLDER} && pulumi stack init refusals && pulumi config set-all ${config.join(" ")}`,
      );

      for (const origin of ["literal", "config"] as const) {
        await write(origin);
        const printed = await refusedPreview(s);
        for (const spec of SECRET_FIELDS) {
          const rule =
            spec.property === OWN_TYPE[origin]
              ? `${spec.property} must be`
              : `${spec.property} belongs to type`;
          expect(printed, `${origin} ${spec.property}`).toContain(
            `resource 'refused' has a problem: ${rule}`,
          );
        }
        if (provider === "dynamic")
          expect(printed).toContain("resource 'refused' has a problem: connection.baseUrl must be");
        expectNoneShown(printed, secrets);
      }

      if (provider === "plugin") {
        await s.mustSh(
          `cd ${FOLDER} && printf '%s' S3CRET-apikey-mistyped | pulumi config set --secret notification-handlers:apikey`,
        );
        const printed = await refusedPreview(s);
        expect(printed).toContain(
          "resource 'default' has a problem: notification-handlers:apikey is not a configuration key",
        );
        expectNoneShown(printed, [...secrets, "S3CRET-apikey-mistyped"]);
      }
    },
  );
}

/** What a failing `pulumi preview` and `pulumi preview --json` printed, stdout and stderr. */
async function refusedPreview(s: UserSession): Promise<string> {
  const printed: string[] = [];
  for (const flags of ["", " --json"]) {
    const preview = await s.sh(`cd ${FOLDER} && pulumi preview${flags}`);
    expect(preview.code, preview.stdout + preview.stderr).not.toBe(0);
    printed.push(preview.stdout, preview.stderr);
  }
  return printed.join("\n");
}

function expectNoneShown(printed: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(printed.includes(secret), `${secret} in the output`).toBe(false);
  for (const notation of VALUE_NOTATION) expect(printed).not.toMatch(notation);
}

const configKey = (spec: FieldSpec): string => `${spec.property}Secret`;

/** The refused resource in Pulumi YAML, through the plugin. */
function yamlProgram(origin: "literal" | "config"): Record<string, string> {
  const properties = SECRET_FIELDS.map(
    (spec) =>
      `      ${spec.property}: ${origin === "literal" ? JSON.stringify(secretOf(spec, "literal")) : `\${${configKey(spec)}}`}`,
  );
  const yaml = [
    `name: ${FOLDER}`,
    "runtime: yaml",
    "resources:",
    "  refused:",
    "    type: notification-handlers:index:NotificationHandler",
    "    properties:",
    `      type: ${OWN_TYPE[origin]}`,
    "      name: Refused",
    ...properties,
    "",
  ];
  return { "Pulumi.yaml": yaml.join("\n") };
}

/** The refused resource in JavaScript, through the dynamic provider, with a connection of its own. */
function nodeProgram(origin: "literal" | "config"): Record<string, string> {
  const value = (spec: FieldSpec): string =>
    origin === "literal"
      ? JSON.stringify(secretOf(spec, "literal"))
      : `config.requireSecret(${JSON.stringify(configKey(spec))})`;
  const apiKey = origin === "literal" ? '"S3CRET-apiKey-literal"' : 'config.requireSecret("connectionKey")';
  const index = [
    'const pulumi = require("@pulumi/pulumi");',
    'const { NotificationHandler } = require("pulumi-notification-handlers");',
    "const config = new pulumi.Config();",
    'new NotificationHandler("refused", {',
    `  type: "${OWN_TYPE[origin]}",`,
    '  name: "Refused",',
    ...SECRET_FIELDS.map((spec) => `  ${spec.property}: ${value(spec)},`),
    `  connection: { baseUrl: "not-a-url", apiKey: ${apiKey} },`,
    "});",
    "",
  ];
  return {
    "Pulumi.yaml": `name: ${FOLDER}\nruntime: nodejs\nmain: index.js\n`,
    "index.js": index.join("\n"),
  };
}
