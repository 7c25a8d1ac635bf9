/**
 * `notification-handlers export` as a process against real servers: what it writes, and its errors
 * (a wrong key, a wrong URL, a site with the feature off, a folder in use), none of which leaves a
 * file behind or shows the key; the update strategy it picks for the reference server and emulated
 * 2025 and 2026 instances, and `--update-strategy` over it. With `--stack` it runs the Pulumi CLI:
 * test/e2e/cli-export.test.ts.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type CliRun as Run, runCli, runCli as run } from "../support/cli-process";
import { type TestServer, startServer } from "../support/servers/server-under-test";

const SLACK = "https://hooks.slack.com/services/T0/B0/EXPORT-SECRET";
const SET_REPLACE = "pulumi config set notification-handlers:updateStrategy replace";

/** `export` of the account of `key` at `url` into `out`, with `extra` options. */
const exportTo = (url: string, key: string, out: string, ...extra: string[]): Promise<Run> =>
  run(["export", "--base-url", url, "--out", out, ...extra], { NOTIFICATION_HANDLERS_API_KEY: key });

/** The "Run it" section of the project's README: the commands that make and configure the stack. */
async function runItOf(out: string): Promise<string> {
  const readme = await readFile(join(out, "README.md"), "utf8");
  return readme.slice(readme.indexOf("## Run it"));
}

describe("notification-handlers export", () => {
  let server: TestServer;
  let featureOff: TestServer;
  let key: string;
  let scratch: string;

  beforeAll(async () => {
    server = await startServer();
    featureOff = await startServer({ featureOff: true });
    key = await server.key();
    for (const [type, name, fields] of [
      ["slack", "Team Slack", { slack: SLACK }],
      ["email", 'Ops "primary" & co', { email: "ops@example.com" }],
    ] as const) {
      const answer = await server.call("POST", "/api/notification-handlers/", {
        key,
        form: { type, name, ...fields },
      });
      expect(answer.status).toBe(201);
    }
    scratch = await mkdtemp(join(tmpdir(), "nh-export-"));
  });

  afterAll(async () => {
    await server.close();
    await featureOff.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("writes a project that reads every secret from stack config, and says how to set them", async () => {
    const out = join(scratch, "team-handlers");
    const result = await run(["export", "--base-url", server.url, "--out", out], {
      NOTIFICATION_HANDLERS_API_KEY: key,
    });
    expect(result.stdout).toContain(
      `Exported 2 handlers to ${out} (1 secret value, none written to a file).`,
    );
    expect(result.stdout).toContain("pulumi config set --secret team-slack.slack");
    expect(result.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      ".gitignore",
      "Pulumi.yaml",
      "README.md",
      "index.ts",
      "package.json",
      "tsconfig.json",
    ]);
    const index = await readFile(join(out, "index.ts"), "utf8");
    expect(index).toContain('slack: config.requireSecret("team-slack.slack"),');
    expect(index).toContain('name: "Ops \\"primary\\" & co",');
    expect(await readFile(join(out, "Pulumi.yaml"), "utf8")).toMatch(
      /^name: team-handlers\nruntime: nodejs\n/,
    );
    const manifest = JSON.parse(await readFile(join(out, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    // The range of the package that made the export.
    const { version } = JSON.parse(await readFile(join(__dirname, "..", "..", "package.json"), "utf8")) as {
      version: string;
    };
    expect(manifest.dependencies["pulumi-notification-handlers"]).toBe(`^${version}`);
    for (const file of await readdir(out)) {
      const text = await readFile(join(out, file), "utf8");
      expect(text.includes(SLACK) || text.includes(key), `a secret in ${file}`).toBe(false);
    }
    expect(`${result.stdout}${result.stderr}`).not.toContain(SLACK);
  });

  it("refuses a folder that is not empty unless --force, and then writes into it", async () => {
    const out = join(scratch, "in-use");
    await mkdir(out);
    await writeFile(join(out, "keep.txt"), "mine");
    const refused = await run(["export", "--base-url", server.url, "--out", out], {
      NOTIFICATION_HANDLERS_API_KEY: key,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--out ${out} exists and is not empty (1 entries)`);
    expect(refused.stderr).toContain("--force");
    expect(await readdir(out)).toEqual(["keep.txt"]);

    const forced = await run(["export", "--base-url", server.url, "--out", out, "--force"], {
      NOTIFICATION_HANDLERS_API_KEY: key,
    });
    expect(forced.code).toBe(0);
    expect(await readdir(out)).toContain("index.ts");
    expect(await readFile(join(out, "keep.txt"), "utf8")).toBe("mine");
  });

  it.each([
    {
      what: "a wrong key",
      url: () => server.url,
      key: () => "nhk_0000000000000000_wrong-key-wrong-key-wrong-key-wrong-key0",
      code: 1,
      message: /refused the API key in NOTIFICATION_HANDLERS_API_KEY/,
    },
    {
      what: "a site with the feature off",
      url: () => featureOff.url,
      key: () => key,
      code: 1,
      message: /has no Notification Handlers API: it answered with a web page.*feature switched off/,
    },
    {
      what: "a URL where nothing listens",
      url: () => "http://127.0.0.1:1",
      key: () => key,
      code: 1,
      message: /cannot reach http:\/\/127\.0\.0\.1:1/,
    },
    {
      what: "a URL that is not one",
      url: () => "status.example.com",
      key: () => key,
      code: 2,
      message: /--base-url must be an absolute http or https URL, got "status.example.com"/,
    },
    {
      what: "no key",
      url: () => server.url,
      key: () => "",
      code: 2,
      message: /NOTIFICATION_HANDLERS_API_KEY must hold the account's API key/,
    },
  ])("fails clearly on $what, writing nothing", async ({ url, key: keyOf, code, message }) => {
    const out = join(scratch, `failed-${code}-${Math.random().toString(36).slice(2)}`);
    const result = await run(["export", "--base-url", url(), "--out", out], {
      NOTIFICATION_HANDLERS_API_KEY: keyOf(),
    });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(code);
    expect(result.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1);
    if (keyOf() !== "") expect(result.stderr).not.toContain(keyOf());
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it("keeps the default in-place for the reference server, and says why", async () => {
    const out = join(scratch, "reference-strategy");
    const result = await exportTo(server.url, key, out);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "Update strategy: in-place, the site answered as the reference server (its list carries meta.total).",
    );
    expect(result.stdout).not.toContain(SET_REPLACE);
    expect(await runItOf(out)).not.toContain(SET_REPLACE);
  });

  it("takes --update-strategy replace over the detection", async () => {
    const out = join(scratch, "reference-replace");
    const result = await exportTo(server.url, key, out, "--update-strategy", "replace");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Update strategy: replace, chosen with --update-strategy.");
    expect(result.stdout).toContain(`  ${SET_REPLACE}\n`);
    expect(await runItOf(out)).toContain(`\n${SET_REPLACE}\n`);
  });

  it("refuses an --update-strategy that is neither in-place nor replace, writing nothing", async () => {
    const out = join(scratch, "bad-strategy");
    const result = await exportTo(server.url, key, out, "--update-strategy", "in_place");
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'notification-handlers: --update-strategy must be in-place or replace, got "in_place" (see --help)\n',
    );
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it("names a missing --out and an unknown option", async () => {
    const missing = await run(["export", "--base-url", server.url], { NOTIFICATION_HANDLERS_API_KEY: key });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--out DIR is required");
    const unknown = await run(["export", "--api-key", key], { NOTIFICATION_HANDLERS_API_KEY: key });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--api-key'");
  });
});

describe.each(["2025", "2026"] as const)(
  "notification-handlers export from an emulated %s instance",
  (version) => {
    let deployed: TestServer;
    let key: string;
    let scratch: string;

    beforeAll(async () => {
      deployed = await startServer({ emulate: version });
      key = await deployed.key();
      for (const form of [
        { type: "slack", name: "Team Slack", slack: SLACK },
        { type: "email", name: "Ops", email: "ops@example.com" },
      ]) {
        const answer = await deployed.call("POST", "/api/notification-handlers/", { key, form });
        expect(answer.status).toBe(201);
      }
      scratch = await mkdtemp(join(tmpdir(), `nh-export-${version}-`));
    });

    afterAll(async () => {
      await deployed.close();
      await rm(scratch, { recursive: true, force: true });
    });

    it("detects the deployed instance and has the printed commands and the README set replace", async () => {
      const out = join(scratch, "handlers");
      const result = await exportTo(deployed.url, key, out);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        "Update strategy: replace, the site answered as a deployed instance (its list carries meta.total_results)",
      );
      expect(result.stdout).toContain("Pass --update-strategy in-place to choose otherwise.");
      // Every handler once, with its settings as the version sends them (2025: a JSON string).
      expect(result.stdout).toContain(`Exported 2 handlers to ${out}`);
      const index = await readFile(join(out, "index.ts"), "utf8");
      expect(index).toContain('slack: config.requireSecret("team-slack.slack"),');
      expect(index).toContain('email: "ops@example.com",');
      expect(index.match(/adopt: \d+,/g)).toHaveLength(2);
      expect(result.stdout).toContain(`  ${SET_REPLACE}\n`);
      expect(await runItOf(out)).toContain(`\n${SET_REPLACE}\n`);
      const seen = `${result.stdout}${result.stderr}${await readFile(join(out, "README.md"), "utf8")}`;
      expect(seen.includes(SLACK) || seen.includes(key), "a secret in the output or the README").toBe(false);
    });

    it("keeps in-place when --update-strategy says so, and says what it overrides", async () => {
      const out = join(scratch, "in-place");
      const result = await exportTo(deployed.url, key, out, "--update-strategy", "in-place");
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        "Update strategy: in-place, chosen with --update-strategy, although the site answered as a deployed instance",
      );
      expect(result.stdout).not.toContain(SET_REPLACE);
    });
  },
);

describe("notification-handlers summary", () => {
  it("reads the preview from stdin or a file, and refuses what is not a preview", async () => {
    const fixture = join(__dirname, "..", "unit", "fixtures", "preview-drift.json");
    const fromFile = await run(["summary", fixture, "--title", "Drift"], {});
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toMatch(/^### Drift\n\n2 to update, 1 to replace\./);
    const fromStdin = await run(["summary"], {}, { input: await readFile(fixture, "utf8") });
    expect(fromStdin.stdout.replace("Notification handlers", "Drift")).toBe(fromFile.stdout);
    const empty = await run(["summary"], {}, { input: "" });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("it is empty");
    const other = await run(["summary", "-"], {}, { input: '{"a":1}' });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('no "steps"');
  });

  it("answers an unknown command with the list of commands", async () => {
    const result = await run(["import"], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'notification-handlers: unknown command "import": use export, recover, summary, validate or version (see --help)\n',
    );
  });
});

describe("notification-handlers validate", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "validate-"));
    await writeFile(join(folder, "good.yaml"), "ops:\n  type: email\n  email: ops@example.com\n");
    await writeFile(join(folder, "bad.yaml"), "ops-2:\n  type: slack\n  slack: https://hooks.slack.com/x\n");
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("exits 0 for files without problems, 1 with each problem on a line, 2 on bad usage", async () => {
    const good = await runCli(["validate", "good.yaml"], {}, { cwd: folder });
    expect(good).toEqual({ code: 0, stdout: "1 handler in 1 file: no problems\n", stderr: "" });

    const bad = await runCli(["validate", "good.yaml", "bad.yaml", "gone.yaml"], {}, { cwd: folder });
    expect(bad.code).toBe(1);
    expect(bad.stdout.split("\n")).toEqual([
      "gone.yaml: no such file",
      expect.stringMatching(/^bad\.yaml:3:10: ops-2\.slack: is a secret and must not be written in the file/),
      "",
    ]);
    expect(bad.stdout).not.toContain("hooks.slack.com");
    expect(bad.stderr).toBe("2 problems in 3 files\n");

    const usage = await runCli(["validate"], {}, { cwd: folder });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe("notification-handlers: name the files to check (see --help)\n");
  });
});
