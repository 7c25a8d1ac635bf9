/**
 * The engine finds the plugin by itself, on the user's path: a Pulumi YAML program that names the
 * plugin's version and download URL as docs/plugin.md tells a YAML user to, in a fresh folder outside
 * the repository, with a fresh PULUMI_HOME holding no plugin. The release (the tarball and
 * `checksums.txt` the e2e set-up built) is served on 127.0.0.1 and stands in for the GitHub release
 * through PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES, pinned to the project's address; every other request
 * goes to a proxy that refuses it, so nothing leaves the machine. `pulumi import` into that stack,
 * whose provider records the URL, writes code that previews with no change. The controls: the same program
 * without the URL never reaches the release and fails within a bound, and the documented
 * `--checksum` install refuses a wrong checksum and takes the right one.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

import { parse, stringify } from "yaml";

import { HANDLER_RESOURCE_TOKEN, PLUGIN_EXECUTABLE, pluginDownloadUrl } from "../../provider/tokens";
import { CHECKSUMS_FILE, pluginTarballName } from "../../scripts/release/build-plugin";
import {
  applyEnvironment,
  type CommandResult,
  REPOSITORY_ROOT,
  mustRun,
  runCommand,
  scratchFolder,
} from "../../scripts/support/user-project";
import { fileBackendEnvironment, startServer, type TestServer } from "../support/engine/stacks";
import {
  type RefusingProxy,
  type ReleaseServer,
  escapeRegExp,
  pluginDownloadEnvironment,
  startRefusingProxy,
  startReleaseServer,
} from "../../scripts/release/stand-in";
import { storyStep } from "../support/story-step";

const { version } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, "package.json"), "utf8")) as {
  version: string;
};
const TAG = `v${version}`;
const TARBALL = pluginTarballName(version);
/** Where the engine installs the plugin of this version, in a PULUMI_HOME. */
const INSTALLED = join("plugins", `resource-notification-handlers-v${version}`);
// Without the URL the engine retries each of its places, about 7 s in all here; a run past this is
// stopped, and fails the test.
const FALLBACK_BOUND_MS = 60_000;

let server: TestServer | undefined;
let release: ReleaseServer | undefined;
let proxy: RefusingProxy | undefined;
let root = "";
let key = "";

/** The one ```<lang> block of docs/plugin.md holding `marker`. */
function docsBlock(lang: string, marker: string): string {
  const page = readFileSync(join(REPOSITORY_ROOT, "docs", "plugin.md"), "utf8");
  const blocks = [...page.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, "gm"))]
    .map((m) => m[1] ?? "")
    .filter((block) => block.includes(marker));
  expect(blocks, `docs/plugin.md's ${lang} block with ${marker}`).toHaveLength(1);
  return blocks[0]!;
}

/** The end of what a command printed, for a failure's message. */
const tail = (result: CommandResult): string =>
  `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-30).join("\n");

/** A user's environment with a PULUMI_HOME of its own, `home`, that holds no plugin. */
async function environment(home: string): Promise<NodeJS.ProcessEnv> {
  const env = await fileBackendEnvironment(root, "local-only", {
    PULUMI_HOME: join(root, home),
    // The provider's settings from the environment, as the docs allow: a stack needs no config.
    NOTIFICATION_HANDLERS_BASE_URL: server!.url,
    NOTIFICATION_HANDLERS_API_KEY: key,
  });
  applyEnvironment(env, pluginDownloadEnvironment(release!, proxy!));
  expect(existsSync(join(env.PULUMI_HOME!, "plugins")), "a fresh PULUMI_HOME").toBe(false);
  return env;
}

/** A Pulumi YAML project `name` of `resources`, with a stack. */
async function yamlProject(
  name: string,
  resources: string,
  env: NodeJS.ProcessEnv,
): Promise<(args: string[], stop?: AbortSignal) => Promise<CommandResult>> {
  const folder = join(root, name);
  await mkdir(folder);
  await writeFile(join(folder, "Pulumi.yaml"), `name: ${name}\nruntime: yaml\n${resources}`);
  await mustRun("pulumi", ["stack", "init", "test"], { cwd: folder, env });
  return (args, stop) =>
    runCommand("pulumi", args, { cwd: folder, env, ...(stop === undefined ? {} : { signal: stop }) });
}

beforeAll(async () => {
  server = await startServer();
  key = await server.newKey();
  root = await scratchFolder("plugin-download");
  // The release the set-up built, in its folder named by its tag.
  release = await startReleaseServer(dirname(inject("release")), join(root, "tls"));
  proxy = await startRefusingProxy();
});

afterAll(async () => {
  await release?.close();
  await proxy?.close();
  await server?.close();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

describe("the plugin, installed by the engine from the release the program names", () => {
  // One story: the release's log and the proxy's carry over from step to step.
  it("downloads it for a YAML program, never without the URL, and verifies the documented install", async () => {
    const timings: string[] = [];
    const timed = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const result = await run();
      timings.push(`${what} ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return result;
    };
    const program = docsBlock("yaml", "pluginDownloadURL:");
    const download = { method: "GET", target: `/releases/download/${TAG}/${TARBALL}`, httpVersion: "2.0" };

    await storyStep(
      "up in a fresh home: the plugin downloaded from the release, a handler created, one imported",
      async () => {
        const env = await environment("home-program");
        const pulumi = await yamlProject("plugin-download", program, env);
        const up = await timed("up", () => pulumi(["up", "--yes"]));
        expect(up.code, tail(up)).toBe(0);
        expect(release!.requests).toEqual([download]);
        expect(proxy!.requests, "a request that left the machine").toEqual([]);
        expect(existsSync(join(env.PULUMI_HOME!, INSTALLED, PLUGIN_EXECUTABLE))).toBe(true);
        expect((await server!.handlers(key)).map((h) => `${h.type} ${h.name}`)).toEqual([
          "email On-call email",
        ]);

        // The provider the engine made for the program: of the version and the URL it was asked for.
        const exported = await pulumi(["stack", "export"]);
        const { deployment } = JSON.parse(exported.stdout) as {
          deployment: { resources: { type: string; inputs?: Record<string, unknown> }[] };
        };
        const providers = deployment.resources.filter(
          (r) => r.type === "pulumi:providers:notification-handlers",
        );
        expect(providers).toHaveLength(1);
        expect(providers[0]?.inputs).toMatchObject({
          version,
          __internal: { pluginDownloadURL: pluginDownloadUrl(version) },
        });

        // `pulumi import` writes its code in a stack whose provider records the download URL, which the
        // engine copies into that code; pasted into the program, it previews with no change.
        const byHand = await server!.seed(key, {
          type: "email",
          name: "Ops mailbox",
          settings: { email: "ops@example.com" },
        });
        const code = join(root, "imported.yaml");
        const importArgs = ["import", HANDLER_RESOURCE_TOKEN, "ops-mailbox", String(byHand)];
        const imported = await timed("import", () =>
          pulumi([...importArgs, "--yes", "--protect=false", "--out", code]),
        );
        expect(imported.code, tail(imported)).toBe(0);
        const generated = parse(await readFile(code, "utf8")) as { resources: Record<string, unknown> };
        expect(generated.resources["ops-mailbox"]).toMatchObject({
          type: "notification-handlers:NotificationHandler", // YAML's short form of the token
          properties: { type: "email", name: "Ops mailbox", email: "ops@example.com" },
        });
        const project = join(root, "plugin-download", "Pulumi.yaml");
        const withImport = parse(await readFile(project, "utf8")) as { resources: Record<string, unknown> };
        Object.assign(withImport.resources, generated.resources);
        await writeFile(project, stringify(withImport));

        const again = await timed("preview, installed", () => pulumi(["preview", "--expect-no-changes"]));
        expect(again.code, tail(again)).toBe(0);
        expect(release!.requests, "a second download").toHaveLength(1);
      },
    );

    await storyStep(
      "without the URL: Pulumi's own places tried, never the release, a bounded failure",
      async () => {
        const env = await environment("home-no-url");
        const withoutUrl = program.replace(/^\s*pluginDownloadURL:.*\n/m, "");
        expect(withoutUrl).not.toEqual(program);
        const pulumi = await yamlProject("plugin-download-no-url", withoutUrl, env);
        const started = performance.now();
        const preview = await timed("preview without the URL", () =>
          pulumi(["preview"], AbortSignal.timeout(FALLBACK_BOUND_MS)),
        );
        expect(performance.now() - started, "the engine gave up by itself").toBeLessThan(FALLBACK_BOUND_MS);
        expect(preview.code).not.toBe(0);
        expect(`${preview.stdout}${preview.stderr}`).toContain(
          "Could not automatically download and install resource plugin 'pulumi-resource-notification-handlers'",
        );
        expect(release!.requests, "a request to the release").toHaveLength(1);
        const tried = new Set(proxy!.requests.map((r) => `${r.method} ${r.target}`));
        expect(tried).toContain("CONNECT get.pulumi.com:443");
        for (const target of tried)
          expect(target).toMatch(/^CONNECT ((api\.)?github\.com|get\.pulumi\.com):443$/);
        expect(existsSync(join(env.PULUMI_HOME!, INSTALLED))).toBe(false);
        expect(await server!.handlers(key)).toHaveLength(2); // the one made and the one imported
      },
    );

    await storyStep(
      "the documented --checksum install: a wrong checksum refused, the right one taken",
      async () => {
        const command = docsBlock("sh", "--checksum");
        const env = await environment("home-checksum");
        const served = await readFile(join(inject("release"), TARBALL));
        const sums = await readFile(join(inject("release"), CHECKSUMS_FILE), "utf8");
        const right = new RegExp(`^([0-9a-f]{64})  ${escapeRegExp(TARBALL)}$`, "m").exec(sums)?.[1];
        expect(right, `${CHECKSUMS_FILE}'s line of the tarball`).toBe(
          createHash("sha256").update(served).digest("hex"),
        );
        const wrong = `${right!.slice(0, -1)}${right!.endsWith("0") ? "1" : "0"}`;
        const install = (checksum: string): Promise<CommandResult> =>
          runCommand("bash", ["-c", command], { cwd: root, env: { ...env, PLUGIN_SHA256: checksum } });
        const before = proxy!.requests.length;

        const refused = await timed("install, wrong checksum", () => install(wrong));
        expect(refused.code).not.toBe(0);
        expect(`${refused.stdout}${refused.stderr}`).toContain(
          `invalid checksum, expected ${wrong}, actual ${right}`,
        );
        expect(existsSync(join(env.PULUMI_HOME!, INSTALLED))).toBe(false);

        const taken = await timed("install, right checksum", () => install(right!));
        expect(taken.code, tail(taken)).toBe(0);
        expect(existsSync(join(env.PULUMI_HOME!, INSTALLED, PLUGIN_EXECUTABLE))).toBe(true);
        expect(release!.requests).toEqual([download, download, download]);
        expect(proxy!.requests, "a request that left the machine").toHaveLength(before);
      },
    );

    process.stderr.write(`[cli-plugin-download] ${timings.join(", ")}\n`);
  });
});
