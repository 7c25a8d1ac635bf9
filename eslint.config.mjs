// Type-aware lint: floating promises, unused imports, node: prefixes.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex:
                "^(assert|buffer|child_process|crypto|events|fs|http|https|net|os|path|stream|timers|url|util|zlib)(/.*)?$",
              message: "Use the node: prefix for built-in modules.",
            },
          ],
        },
      ],
    },
  },
);
