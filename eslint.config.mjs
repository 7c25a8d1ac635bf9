// Type-aware lint: floating promises, unused imports, node: prefixes.
import { globSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Built-in modules by their `node:` name: every block that restricts imports keeps this pattern. */
const NODE_PREFIX = {
  regex:
    "^(assert|buffer|child_process|crypto|events|fs|http|https|net|os|path|stream|timers|url|util|zlib)(/.*)?$",
  message: "Use the node: prefix for built-in modules.",
};

/** A block that forbids the files it covers the imports `patterns` match (built-ins without `node:` too). */
function importsOf(files, patterns, ignores = []) {
  return {
    files,
    ignores,
    rules: { "no-restricted-imports": ["error", { patterns: [NODE_PREFIX, ...patterns] }] },
  };
}

/**
 * Blocks that keep `folder`'s files from any relative import out of it (saying `message`), and from
 * what `patterns` match. A pattern sees the import, not the file, so there is a block per depth.
 */
function staysInside(folder, message, patterns) {
  const files = globSync(`${folder}/**/*.ts`, { cwd: import.meta.dirname, exclude: [`${folder}/dist/**`] });
  const depths = new Set(files.map((file) => file.split("/").length - 2));
  return [...depths].map((depth) =>
    importsOf(
      [`${folder}/${"*/".repeat(depth)}*.ts`],
      [{ regex: `^(\\.\\./){${depth + 1}}`, message }, ...patterns],
    ),
  );
}

/*
 * provider/'s parts, as a module in one of its folders names them (provider/README.md): the
 * dynamic provider (dynamic/: its resource, lookups and HandlerSet, its runtime and the source states
 * record), the plugin, and Pulumi's SDK, which the core and the handler sets' format do without. Above
 * the folders sit the package's export, which imports them, and two leaves every folder may import.
 */
const DYNAMIC_PROVIDER = {
  regex: "^(\\.\\.?/)+dynamic(/|$)",
  message: "The dynamic provider is for TypeScript programs: neither the core nor the plugin imports it.",
};
const PLUGIN = {
  regex: "^(\\.\\.?/)+plugin(/|$)",
  message: "The plugin is for the other languages: neither the core nor the dynamic provider imports it.",
};
const ABOVE_THE_FOLDERS = {
  regex: "^(\\.\\./)+(?!(tokens|version)$)[^./][^/]*$",
  message:
    "Of the modules above provider/'s folders, a folder imports the names (tokens.ts) and the version alone: the others import the folders.",
};
const LEAF = {
  regex: "^\\.\\.?/(?!tokens$)",
  message: "The names and the version are leaves: of the repository they import the names alone.",
};
const PULUMI_SDK = {
  regex: "^@pulumi/pulumi(/|$)",
  message:
    "The core and the handler sets' shared side do without Pulumi's SDK: each provider translates the engine's calls.",
};
const OUTSIDE_PROVIDER = {
  regex: "^(\\.\\./)+(cli|scripts|test|server)(/|$)",
  message:
    "Of the rest of the repository, provider/ imports sdk/ alone: nothing of cli/, scripts/, test/ or server/.",
};

// cli/ reaches provider/ through one module, which loads nothing heavy when imported: the plugin's
// executable starts through cli/, and its start must not load the provider's operations.
const PROVIDER_THROUGH_ITS_SEAM = {
  regex: "^(\\.\\./)+provider(/(?!for-cli$)|$)",
  message: "cli/ reaches the provider through provider/for-cli.ts alone.",
};
const LOADED_WHEN_CALLED = {
  regex: "^\\./(plugin/server|core/(operations|context))$",
  message:
    "The seam loads the plugin's server and the provider's operations with import() when called, never when imported.",
};
const OUTSIDE_CLI = {
  regex: "^(\\.\\./)+(scripts|test|server)(/|$)",
  message:
    "cli/ imports sdk/, shared/command-line.ts and provider/for-cli.ts: nothing of scripts/, test/ or server/.",
};

// sdk/ is the client a user may take alone: nothing of ours outside it comes in, by path or by name.
const OURS_BY_NAME = {
  regex: "^(pulumi-notification-handlers|notification-handlers-shared|#shared)(/|$)",
  message: "sdk/ imports nothing of ours outside it.",
};
const sdkStandsAlone = staysInside("sdk", "sdk/ imports nothing of ours outside it.", [OURS_BY_NAME]);

// server/ is a package of its own (docs/development.md#the-packages-and-the-catalog): no relative import
// leaves it, nothing of the CLI, the provider or Pulumi comes in, and what it takes from the rest of the
// repository comes as #shared.
const SERVER_NEEDS_NOTHING_ELSE = {
  regex: "^(pulumi-notification-handlers|@pulumi/)|(^|/)(cli|provider)(/|$)",
  message: "server/ imports nothing of the CLI, the provider or Pulumi.",
};
const SHARED_BY_ITS_NAME = {
  regex: "^notification-handlers-shared(/|$)",
  message: "Import it as #shared, the name that leads to the compiled copy where the server is installed.",
};
const serverStandsAlone = staysInside(
  "server",
  "server/ is a package of its own: import what its package.json declares, not a path out of it.",
  [SERVER_NEEDS_NOTHING_ELSE, SHARED_BY_ITS_NAME],
);

export default tseslint.config(
  {
    // test/fixtures' JavaScript programs run as a user's would, outside the TypeScript program.
    ignores: [
      "dist/",
      "server/dist/",
      "node_modules/",
      ".e2e-work/",
      ".demo-work/",
      "sdk/python/",
      "sdk/go/",
      "sdk/dotnet/",
      "**/*.mjs",
      "**/*.cjs",
      "test/fixtures/**/*.js",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // One program for the whole repository, as the build has: the examples' own tsconfig files
      // would each make another.
      parserOptions: { project: "./tsconfig.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-imports": ["error", { patterns: [NODE_PREFIX] }],
    },
  },
  // provider/: one core, two providers over it. The core, and the handler sets' format and entries that
  // both providers share, import neither provider; neither provider imports the other; no folder
  // imports what sits above it but the names and the version.
  importsOf(
    ["provider/core/**/*.ts", "provider/handler-sets/**/*.ts"],
    [DYNAMIC_PROVIDER, PLUGIN, PULUMI_SDK, ABOVE_THE_FOLDERS, OUTSIDE_PROVIDER],
  ),
  importsOf(["provider/dynamic/**/*.ts"], [PLUGIN, ABOVE_THE_FOLDERS, OUTSIDE_PROVIDER]),
  importsOf(["provider/plugin/**/*.ts"], [DYNAMIC_PROVIDER, ABOVE_THE_FOLDERS, OUTSIDE_PROVIDER]),
  // The policies read what the engine recorded of either provider's resources, through the names.
  importsOf(["provider/policy/**/*.ts"], [DYNAMIC_PROVIDER, PLUGIN, ABOVE_THE_FOLDERS, OUTSIDE_PROVIDER]),
  importsOf(
    ["provider/*.ts"],
    [PLUGIN, OUTSIDE_PROVIDER],
    ["provider/tokens.ts", "provider/version.ts", "provider/for-cli.ts"],
  ),
  importsOf(["provider/tokens.ts", "provider/version.ts"], [LEAF]),
  // The command line's seam takes from every folder, the plugin's included.
  importsOf(["provider/for-cli.ts"], [LOADED_WHEN_CALLED, OUTSIDE_PROVIDER]),
  importsOf(["cli/**/*.ts"], [PROVIDER_THROUGH_ITS_SEAM, OUTSIDE_CLI]),
  ...sdkStandsAlone,
  ...serverStandsAlone,
);
