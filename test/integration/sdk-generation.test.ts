/**
 * `npm run build:sdks` into a temporary folder: the project's generator built with Go (seconds once
 * Go's caches are warm) and run on the committed schema. Each language's SDK has its package files and
 * resource, stamped with the package's version, and the credential fields are secret in them. Each
 * sends that version and the plugin's download URL with every registration and invoke, the explicit
 * provider's included, and names both in its `pulumi-plugin.json`: the engine then installs the
 * plugin of the SDK's own version by itself.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PACKAGE_NAME, pluginDownloadUrl } from "../../provider/tokens";
import { generateSdks } from "../../scripts/release/build-sdks";
import { ALL_FIELDS } from "../../sdk/client/domain/catalog";

const work = mkdtempSync(join(tmpdir(), "sdk-generation-"));
const out = join(work, "sdk");
const { version } = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
  version: string;
};
const read = (path: string): string => readFileSync(join(out, path), "utf8");

const SECRET_PROPERTIES = ALL_FIELDS.filter((f) => f.secret).map((f) => f.property);
const PLAIN_PROPERTIES = ALL_FIELDS.filter((f) => !f.secret).map((f) => f.property);

/** The property names in the generated list of outputs the engine keeps secret. */
function secretOutputs(source: string, listPattern: RegExp): string[] {
  const list = listPattern.exec(source)?.[1];
  if (list === undefined) throw new Error(`no list of secret outputs matches ${listPattern}`);
  return [...list.matchAll(/"(\w+)"/g)].map((m) => m[1] ?? "");
}

describe("the SDKs generated from the schema", () => {
  let report = "";

  beforeAll(async () => {
    report = await generateSdks({ outDir: out, toolsDir: join(work, "tools") });
  }, 600_000); // 10 min: a first build fetches and compiles Pulumi's generators

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("writes the three languages and says how many files each has", () => {
    for (const language of ["python", "go", "dotnet"]) {
      expect(report).toMatch(new RegExp(`${language}: \\d+ files`));
    }
  });

  it("writes a Python package of the package's version, with its resource, provider and lookups", () => {
    expect(
      existsSync(join(out, "python", "setup.py")) || existsSync(join(out, "python", "pyproject.toml")),
    ).toBe(true);
    expect(read("python/setup.py")).toContain(`VERSION = "${version}"`);
    for (const module of ["notification_handler.py", "provider.py", "get_notification_handler.py"]) {
      expect(existsSync(join(out, "python", "pulumi_notification_handlers", module)), module).toBe(true);
    }
  });

  it("keeps every credential field secret in Python, and no other field", () => {
    const source = read("python/pulumi_notification_handlers/notification_handler.py");
    const secrets = secretOutputs(source, /additional_secret_outputs=\[([^\]]*)\]/);
    expect(secrets).toEqual(expect.arrayContaining(SECRET_PROPERTIES));
    for (const plain of PLAIN_PROPERTIES) expect(secrets).not.toContain(plain);
    expect(source).toContain("pulumi.Output.secret(slack)");
  });

  it("writes a Go module whose import path is the schema's, with the resource", () => {
    expect(read("go/go.mod")).toMatch(
      /^module github\.com\/notification-handlers\/pulumi-notification-handlers\/sdk\/go$/m,
    );
    const source = read("go/notificationhandlers/notificationHandler.go");
    const secrets = secretOutputs(source, /AdditionalSecretOutputs\(\[\]string\{([^}]*)\}/);
    expect(secrets).toEqual(expect.arrayContaining(SECRET_PROPERTIES));
    for (const plain of PLAIN_PROPERTIES) expect(secrets).not.toContain(plain);
  });

  it("writes the HandlerSet component in Python and Go, built remotely by the plugin", () => {
    const python = read("python/pulumi_notification_handlers/handler_set.py");
    expect(python).toContain("remote=True");
    expect(python).toContain("files: pulumi.Input[Optional[Sequence[pulumi.Input[_builtins.str]]]] = None");
    expect(python).toContain("def handler_ids(self)");
    const go = read("go/notificationhandlers/handlerSet.go");
    expect(go).toContain("RegisterRemoteComponentResource");
    expect(go).toContain("Files pulumi.StringArrayInput");
  });

  it.each([
    ["python", "python/pulumi_notification_handlers/pulumi-plugin.json"],
    ["go", "go/notificationhandlers/pulumi-plugin.json"],
    ["dotnet", "dotnet/pulumi-plugin.json"],
  ])("names the plugin's version and download URL in the %s SDK's pulumi-plugin.json", (_, path) => {
    expect(JSON.parse(read(path))).toEqual({
      resource: true,
      name: PACKAGE_NAME,
      version,
      server: pluginDownloadUrl(version),
    });
  });

  it("sends the version and the URL with every resource, the provider's included, and every invoke in Python", () => {
    const utilities = read("python/pulumi_notification_handlers/_utilities.py");
    expect(utilities).toMatch(new RegExp(`def get_version\\(\\):\\n\\s+return "${version}"`));
    expect(utilities).toContain(`def get_plugin_download_url():\n\treturn "${pluginDownloadUrl(version)}"`);
    for (const defaults of ["get_resource_opts_defaults", "get_invoke_opts_defaults"]) {
      expect(utilities).toMatch(
        new RegExp(
          `def ${defaults}\\(\\)[^:]*:\\s+return pulumi\\.\\w+Options\\(\\s+version=get_version\\(\\),\\s+plugin_download_url=get_plugin_download_url\\(\\),`,
        ),
      );
    }
    for (const resource of ["provider.py", "notification_handler.py", "handler_set.py"]) {
      expect(read(`python/pulumi_notification_handlers/${resource}`), resource).toContain(
        "opts = pulumi.ResourceOptions.merge(_utilities.get_resource_opts_defaults(), opts)",
      );
    }
    for (const lookup of ["get_notification_handler.py", "get_notification_handlers.py"]) {
      expect(read(`python/pulumi_notification_handlers/${lookup}`), lookup).toContain(
        "_utilities.get_invoke_opts_defaults()",
      );
    }
  });

  it("sends the version and the URL with every resource, the provider's included, and every invoke in Go", () => {
    const utilities = read("go/notificationhandlers/internal/pulumiUtilities.go");
    for (const kind of ["Resource", "Invoke"]) {
      const defaults = new RegExp(`func Pkg${kind}DefaultOpts\\([^)]*\\)[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(
        utilities,
      )?.[1];
      expect(defaults, `Pkg${kind}DefaultOpts`).toContain(
        `pulumi.PluginDownloadURL("${pluginDownloadUrl(version)}")`,
      );
      // Not `SdkVersion`, which stays empty without the schema's `respectSchemaVersion`.
      expect(defaults, `Pkg${kind}DefaultOpts`).toContain(`semver.MustParse("${version}")`);
    }
    for (const resource of ["provider.go", "notificationHandler.go", "handlerSet.go"]) {
      expect(read(`go/notificationhandlers/${resource}`), resource).toContain(
        "opts = internal.PkgResourceDefaultOpts(opts)",
      );
    }
    for (const lookup of ["getNotificationHandler.go", "getNotificationHandlers.go"]) {
      expect(read(`go/notificationhandlers/${lookup}`), lookup).toContain(
        "internal.PkgInvokeDefaultOpts(opts)",
      );
    }
  });

  it("sends the version and the URL with every resource, the provider's included, and every invoke in .NET", () => {
    expect(read("dotnet/version.txt")).toBe(version);
    const utilities = read("dotnet/Utilities.cs");
    // The two `WithDefaults`, of invokes and of output invokes; resources set theirs themselves.
    expect(utilities.match(/dst\.Version = src\?\.Version \?\? Version;/g)).toHaveLength(2);
    expect(
      utilities.split(`dst.PluginDownloadURL = src?.PluginDownloadURL ?? "${pluginDownloadUrl(version)}";`),
    ).toHaveLength(3);
    for (const resource of ["Provider.cs", "NotificationHandler.cs", "HandlerSet.cs"]) {
      const source = read(`dotnet/${resource}`);
      expect(source, resource).toContain("Version = Utilities.Version,");
      expect(source, resource).toContain(`PluginDownloadURL = "${pluginDownloadUrl(version)}",`);
    }
    for (const lookup of ["GetNotificationHandler.cs", "GetNotificationHandlers.cs"]) {
      expect(read(`dotnet/${lookup}`), lookup).toContain(".WithDefaults()");
    }
  });

  it("writes a .NET project of the package's version, saying it is not compiled here", () => {
    expect(existsSync(join(out, "dotnet", "NotificationHandler.cs"))).toBe(true);
    expect(read("dotnet/NotificationHandlers.NotificationHandlers.csproj")).toContain(
      `<Version>${version}</Version>`,
    );
    expect(read("dotnet/README.md")).toContain("generates this SDK but does not compile it");
  });
});
