/**
 * The oldest Pulumi SDK each generated SDK accepts, read from what the generator wrote for the release
 * (sdk/python's setup.py, sdk/go's go.mod), held to the table "Versions that go together" of
 * docs/installation-configuration.md, and the command a user runs to move a project onto it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { expect } from "vitest";

import { CHECKOUT_SDKS } from "../../../scripts/release/build-sdks";
import { pipPins, REPOSITORY_ROOT } from "../../../scripts/support/user-project";
import type { UserSession } from "./user-path";

const INSTALLATION_PAGE = "docs/installation-configuration.md";

/** The table's row of one package, named as its first cell names it. */
function versionsRow(pkg: string): string {
  const page = readFileSync(join(REPOSITORY_ROOT, INSTALLATION_PAGE), "utf8");
  const row = page.split("\n").find((line) => line.startsWith(`| ${pkg} |`));
  if (row === undefined) throw new Error(`${INSTALLATION_PAGE} has no row for ${pkg}`);
  return row;
}

/** A match of `pattern` in the generated SDK's `file`, which must have one. */
function generated(file: string, pattern: RegExp): string {
  const path = join(CHECKOUT_SDKS.outDir, file);
  const found = pattern.exec(readFileSync(path, "utf8"))?.[1];
  if (found === undefined) throw new Error(`${path} has nothing like ${pattern}`);
  return found;
}

/** The version `pattern` finds in `file` of examples/<example> (its go.mod). */
function pinned(example: string, file: string, pattern: RegExp): string {
  const found = pattern.exec(readFileSync(join(REPOSITORY_ROOT, "examples", example, file), "utf8"))?.[1];
  if (found === undefined) throw new Error(`examples/${example}/${file} pins nothing like ${pattern}`);
  return found;
}

/**
 * The Python SDK's row says what the SDK accepts and that the floor and the pin are tested; then
 * `pip install pulumi==<floor>` in the project's virtual environment.
 */
export async function onOldestPythonSdk(s: UserSession): Promise<void> {
  const floor = generated("python/setup.py", /'pulumi>=([\d.]+),<4\.0\.0'/);
  const python = generated("python/setup.py", /python_requires='>=([\d.]+)'/);
  const pin = pipPins(readFileSync(join(REPOSITORY_ROOT, "examples/python/constraints.txt"), "utf8")).get(
    "pulumi",
  );
  const row = versionsRow("`pulumi` (PyPI)");
  expect(row).toContain(`| \`>=${floor},<4.0.0\`, on Python ${python} or later |`);
  expect(row).toMatch(new RegExp(`\\| ${floor}, the lowest, and ${pin} \\|$`));

  await s.mustSh(`venv/bin/python -m pip install --quiet pulumi==${floor}`);
  const shown = await s.mustSh("venv/bin/python -m pip show pulumi");
  expect(shown.stdout).toMatch(new RegExp(`^Version: ${floor}$`, "m"));
}

/**
 * The Go SDK's row says what the SDK accepts and that the floor and the pin are tested; then
 * `go get github.com/pulumi/pulumi/sdk/v3@v<floor>` and `go mod tidy`.
 */
export async function onOldestGoSdk(s: UserSession): Promise<void> {
  const floor = generated("go/go.mod", /^require github\.com\/pulumi\/pulumi\/sdk\/v3 v([\d.]+)$/m);
  const go = generated("go/go.mod", /^go ([\d.]+)$/m);
  const pin = pinned("go", "go.mod", /^\tgithub\.com\/pulumi\/pulumi\/sdk\/v3 v([\d.]+)$/m);
  const row = versionsRow("`github.com/pulumi/pulumi/sdk/v3` (Go)");
  expect(row).toContain(`| v${floor} or later (Go ${go}) |`);
  expect(row).toMatch(new RegExp(`\\| v${floor}, the lowest, and v${pin} \\|$`));

  // Tidy adds what the older SDK needs and the newer one dropped, at the versions it names.
  await s.mustSh(`go get github.com/pulumi/pulumi/sdk/v3@v${floor}\ngo mod tidy`);
  const listed = await s.mustSh("go list -m github.com/pulumi/pulumi/sdk/v3");
  expect(listed.stdout.trim()).toBe(`github.com/pulumi/pulumi/sdk/v3 v${floor}`);
}
