// The API report of each export path of package.json: `npm run generate` runs it to write
// api/<name>.api.md from the built declarations, `--check` (test/integration/api-report.test.ts)
// fails when one differs from what is committed. Plain JavaScript beside its reports: it reads the
// build, it is not part of it.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const CONFIG = join(HERE, "api-extractor.json");
const PACKAGE_JSON = join(ROOT, "package.json");
const UPDATE = "npm run generate";

/**
 * Every export path with code behind it, its report's name (`.` is `index`, `./provider/runtime` is
 * `provider-runtime`) and its emitted declarations. `./package.json` is the manifest, not an API.
 */
function entryPoints() {
  const { exports } = JSON.parse(readFileSync(PACKAGE_JSON, "utf8"));
  return Object.entries(exports)
    .filter(([path]) => path !== "./package.json")
    .map(([path, target]) => {
      if (typeof target !== "string" || !/^\.\/dist\/.+\.js$/.test(target))
        throw new Error(
          `api/report.mjs reads each export as "./dist/....js"; ${path} is ${JSON.stringify(target)}`,
        );
      return {
        path,
        name: path === "." ? "index" : path.slice(2).replaceAll("/", "-"),
        declarations: join(ROOT, target.replace(/\.js$/, ".d.ts")),
      };
    });
}

/** Runs api-extractor over every entry point: which reports differ from the committed ones, and what went wrong. */
function run(check) {
  const entries = entryPoints();
  const missing = entries.filter((entry) => !existsSync(entry.declarations));
  if (missing.length > 0)
    throw new Error(
      `no ${missing.map((e) => relative(ROOT, e.declarations)).join(", ")}: run \`npm run build\` first`,
    );

  const base = ExtractorConfig.loadFile(CONFIG);
  const temp = mkdtempSync(join(tmpdir(), "api-report-"));
  const changed = [];
  const problems = [];
  const diffs = [];
  try {
    let compilerState;
    for (const entry of entries) {
      const configObject = structuredClone(base);
      configObject.mainEntryPointFilePath = entry.declarations;
      configObject.apiReport.reportFileName = entry.name;
      // A check writes nothing in the repository: api-extractor puts what it found in the temp folder.
      configObject.apiReport.reportTempFolder = temp;
      const config = ExtractorConfig.prepare({
        configObject,
        configObjectFullPath: CONFIG,
        packageJsonFullPath: PACKAGE_JSON,
      });
      // One TypeScript program for all the entry points: the analysis is most of the time.
      compilerState ??= CompilerState.create(config, {
        additionalEntryPoints: entries.map((e) => e.declarations),
      });
      const result = Extractor.invoke(config, {
        localBuild: !check,
        compilerState,
        printApiReportDiff: check,
        messageCallback: (message) => {
          message.handled = true;
          // api-extractor's own notes on the reports are said below in this script's words, the diff
          // apart; what the compiler or the analysis found is a problem.
          if (message.category === "console") {
            if (message.messageId === "console-api-report-diff") diffs.push(message.text);
          } else if (message.logLevel === "error" || message.logLevel === "warning") {
            problems.push(`${entry.path}: ${message.formattedMessageText ?? message.text}`);
          }
        },
      });
      if (result.apiReportChanged)
        changed.push({
          ...entry,
          file: join(HERE, `${entry.name}.api.md`),
          diff: diffs.splice(0).join("\n"),
        });
    }
    const known = new Set(entries.map((entry) => `${entry.name}.api.md`));
    const orphans = readdirSync(HERE).filter((file) => file.endsWith(".api.md") && !known.has(file));
    return { changed, problems, orphans, temp };
  } finally {
    // Kept only for a failed check, whose message points at the new report.
    if (!check || changed.length === 0) rmSync(temp, { recursive: true, force: true });
  }
}

const check = process.argv.includes("--check");
const { changed, problems, orphans, temp } = run(check);
for (const problem of problems) process.stderr.write(`${problem}\n`);
if (problems.length > 0) process.exit(1);

if (!check) {
  for (const entry of changed)
    process.stdout.write(`updated ${relative(ROOT, entry.file)} (${entry.path})\n`);
  if (changed.length === 0) process.stdout.write("the API reports in api/ are up to date\n");
  for (const file of orphans) process.stdout.write(`api/${file} belongs to no export path: delete it\n`);
  process.exit(orphans.length > 0 ? 1 : 0);
}

for (const entry of changed) {
  const committed = relative(ROOT, entry.file);
  const against = existsSync(entry.file) ? `differs from ${committed}` : `has no report ${committed}`;
  process.stderr.write(
    `the public API of pulumi-notification-handlers${entry.path === "." ? "" : entry.path.slice(1)} ` +
      `${against}: run \`${UPDATE}\` and commit the report with the change ` +
      `(this build's report: ${join(temp, `${entry.name}.api.md`)})\n${entry.diff}\n`,
  );
}
for (const file of orphans) process.stderr.write(`api/${file} belongs to no export path: delete it\n`);
process.exit(changed.length > 0 || orphans.length > 0 ? 1 : 0);
