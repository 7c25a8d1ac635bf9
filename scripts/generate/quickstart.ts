/**
 * The quickstart in every language, from the templates' own programs (templates/<language>): each
 * language's way to start (the template, the install line) and its program, then the configuration
 * every language shares. The README and the installation page show them one after another; the
 * Pulumi Registry's page in its language chooser.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { NPM_PACKAGE, REPOSITORY_URL } from "../../provider/tokens";
import { packageVersion } from "../release/build-plugin";
import { GO_MODULE, PYTHON_PACKAGE } from "../release/release";
import { REPOSITORY_ROOT } from "../support/user-project";

interface Language {
  /** The template's folder and the chooser's name. */
  name: string;
  title: string;
  /** The program's file in the template, and the code block's language. */
  file: string;
  fence: string;
  /** The install line of a project made otherwise; none for YAML, whose program names the plugin. */
  install: (version: string) => string | undefined;
}

const LANGUAGES: Language[] = [
  {
    name: "typescript",
    title: "TypeScript",
    file: "index.ts",
    fence: "ts",
    install: (v) => `npm install ${NPM_PACKAGE}@${v} @pulumi/pulumi`,
  },
  {
    name: "python",
    title: "Python",
    file: "__main__.py",
    fence: "python",
    install: (v) => `pip install ${PYTHON_PACKAGE}==${v}`,
  },
  {
    name: "go",
    title: "Go",
    file: "main.go",
    fence: "go",
    install: (v) => `go get ${GO_MODULE}@v${v}`,
  },
  { name: "yaml", title: "YAML", file: "Pulumi.yaml", fence: "yaml", install: () => undefined },
];

/** The program as a user reads it: a YAML template's Pulumi.yaml from its program on. */
function program(language: Language): string {
  const text = readFileSync(join(REPOSITORY_ROOT, "templates", language.name, language.file), "utf8");
  const body = language.name === "yaml" ? text.slice(text.search(/^config:$/m)) : text;
  return body.trimEnd();
}

/** How a user starts in `language`: the template, or the install line in a project of their own. */
function start(language: Language, version: string): string {
  const template = `pulumi new ${REPOSITORY_URL}/tree/v${version}/templates/${language.name}`;
  const install = language.install(version);
  return [
    "```sh",
    template,
    ...(install === undefined ? [] : [`${install}   # or, in a project of yours`]),
    "```",
  ].join("\n");
}

/** One language's part: how to start, then the program. */
function part(language: Language, version: string): string {
  return `${start(language, version)}\n\n\`\`\`${language.fence}\n${program(language)}\n\`\`\``;
}

/** What every language sets before `pulumi up`: the site, the key and the webhook, as secrets where secret. */
const CONFIGURATION = [
  "`pulumi new` asks for the site, the API key and the webhook, and keeps the last two encrypted (a",
  "value given with `--config` is stored as given: set secrets with `--secret`). In a project of your own:",
  "",
  "```sh",
  "pulumi config set notification-handlers:baseUrl https://uptime.example.com",
  "pulumi config set --secret notification-handlers:apiKey <key>",
  "pulumi config set --secret slackWebhook https://hooks.slack.com/services/...",
  "pulumi config set oncallEmail oncall@example.com",
  "pulumi up",
  "```",
].join("\n");

/** Each language under its own heading, then the configuration: the README and the installation page. */
export function quickstartSections(): string {
  const version = packageVersion();
  const parts = LANGUAGES.map((language) => `**${language.title}**\n\n${part(language, version)}`);
  return [...parts, CONFIGURATION].join("\n\n");
}

/** The same in the Pulumi Registry's language chooser. */
export function quickstartChooser(): string {
  const version = packageVersion();
  const parts = LANGUAGES.map(
    (language) =>
      `{{% choosable language ${language.name} %}}\n\n${part(language, version)}\n\n{{% /choosable %}}`,
  );
  const names = LANGUAGES.map((language) => language.name).join(",");
  return [`{{< chooser language "${names}" >}}`, ...parts, "{{< /chooser >}}", CONFIGURATION].join("\n\n");
}
