/**
 * The export's update strategy: `replace` for a site that lists as a deployed instance, the default
 * `in-place` otherwise, `--update-strategy` over both; what the command says and the files hold.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";

import { planExport } from "../../cli/export-plan";
import { exportCommand } from "../../cli/export";
import { type CliIo, UsageError } from "../../cli/io";
import { configCommands, renderProject } from "../../cli/project-files";
import { chooseUpdateStrategy, parseUpdateStrategy, strategyLine } from "../../cli/update-strategy";
import type { NotificationHandlerRecord } from "../../sdk/client/domain/resources/handler-parsing";
import type { ListDialect } from "../../sdk/client/domain/whole-account";

const SET_REPLACE = "pulumi config set notification-handlers:updateStrategy replace";

/** The README's "Run it" section: the commands that make and configure the stack. */
const runIt = (readme: string): string => readme.slice(readme.indexOf("## Run it"));

const slack: NotificationHandlerRecord = {
  id: 4,
  type: "slack",
  name: "Team Slack",
  settings: { slack: "https://hooks.slack.com/services/T0/B0/STRATEGY-SECRET" },
  is_enabled: true,
  is_pending: false,
  last_datetime: null,
  datetime: "2026-11-23 10:00:00",
};

describe("chooseUpdateStrategy", () => {
  it.each<[ListDialect, "in-place" | "replace"]>([
    ["deployed", "replace"],
    ["reference", "in-place"],
    [undefined, "in-place"],
  ])("detects %s lists as %s", (dialect, strategy) => {
    expect(chooseUpdateStrategy(undefined, dialect)).toEqual({ strategy, source: "detected", dialect });
  });

  it("lets the option override the detection either way", () => {
    expect(chooseUpdateStrategy("in-place", "deployed").strategy).toBe("in-place");
    expect(chooseUpdateStrategy("replace", "reference").strategy).toBe("replace");
    expect(chooseUpdateStrategy("replace", "reference").source).toBe("option");
  });
});

describe("parseUpdateStrategy", () => {
  it("takes exactly the provider's two strategies", () => {
    expect(parseUpdateStrategy("in-place")).toBe("in-place");
    expect(parseUpdateStrategy("replace")).toBe("replace");
    expect(parseUpdateStrategy("inplace")).toBeUndefined();
    expect(parseUpdateStrategy("Replace")).toBeUndefined();
  });
});

describe("strategyLine", () => {
  it("says which strategy, why, and how to choose the other", () => {
    expect(strategyLine(chooseUpdateStrategy(undefined, "deployed"))).toBe(
      "Update strategy: replace, the site answered as a deployed instance (its list carries " +
        "meta.total_results), whose 2025 and 2026 versions do not apply in-place updates. " +
        "Pass --update-strategy in-place to choose otherwise.",
    );
    expect(strategyLine(chooseUpdateStrategy(undefined, "reference"))).toBe(
      "Update strategy: in-place, the site answered as the reference server (its list carries " +
        "meta.total). Pass --update-strategy replace to choose otherwise.",
    );
    expect(strategyLine(chooseUpdateStrategy(undefined, undefined))).toContain(
      "in-place, the site's list showed no sign of a deployed instance.",
    );
  });

  it("names the option when it decided, and the defect it overrides on a deployed instance", () => {
    expect(strategyLine(chooseUpdateStrategy("replace", "reference"))).toBe(
      "Update strategy: replace, chosen with --update-strategy.",
    );
    expect(strategyLine(chooseUpdateStrategy("in-place", "deployed"))).toBe(
      "Update strategy: in-place, chosen with --update-strategy, although the site answered as a " +
        "deployed instance (its list carries meta.total_results), whose 2025 and 2026 versions do " +
        "not apply in-place updates.",
    );
  });
});

describe("the project's files and commands", () => {
  const plan = planExport([slack]);
  const render = (dialect: ListDialect, option?: "in-place" | "replace", stack?: string) =>
    renderProject(plan, {
      project: "acct",
      baseUrl: "https://status.example.com",
      packageSpec: "^0.1.0",
      stack,
      updateStrategy: chooseUpdateStrategy(option, dialect),
    });

  it("set replace in a new stack's config for a deployed instance, after the base URL", () => {
    const commands = configCommands(
      plan,
      "https://status.example.com",
      chooseUpdateStrategy(undefined, "deployed"),
    );
    expect(commands.slice(0, 3)).toEqual([
      "pulumi stack init dev",
      "pulumi config set notification-handlers:baseUrl https://status.example.com",
      SET_REPLACE,
    ]);
    const readme = render("deployed")["README.md"]!;
    expect(runIt(readme)).toContain(`\n${SET_REPLACE}\n`);
    expect(readme).toContain(
      "Changes are made `replace`: the site answered as a deployed instance (its list carries meta.total_results)",
    );
    expect(readme).toContain("The commands below set it in the stack's config.");
  });

  it("leave the default in-place unset on the reference server, unless the option says replace", () => {
    const reference = render("reference");
    expect(
      configCommands(plan, "https://x.example", chooseUpdateStrategy(undefined, "reference")),
    ).not.toContain(SET_REPLACE);
    expect(runIt(reference["README.md"]!)).not.toContain(SET_REPLACE);
    expect(reference["README.md"]).toContain(
      "It is the provider's default: a new stack needs no setting for it.",
    );
    // The way to the other strategy is shown, as a command of its own section.
    expect(reference["README.md"]).toContain("To choose the other one later:\n\n```sh\n" + SET_REPLACE);

    const overridden = render("reference", "replace")["README.md"]!;
    expect(runIt(overridden)).toContain(`\n${SET_REPLACE}\n`);
    expect(overridden).toContain("Changes are made `replace`: chosen with --update-strategy.");
  });

  it("with a stack, say the stack's config holds it, and list no commands", () => {
    const readme = render("deployed", undefined, "prod")["README.md"]!;
    expect(readme).toContain("The stack's config sets `notification-handlers:updateStrategy` to it.");
    expect(readme).not.toContain("pulumi stack init");
    expect(readme).toContain("pulumi config set notification-handlers:updateStrategy in-place\n```");
  });

  it("never hold a secret value, whichever the strategy", () => {
    for (const files of [render("deployed"), render("reference", "replace", "prod")]) {
      expect(Object.values(files).join("\n")).not.toContain(slack.settings.slack);
    }
  });
});

describe("export --update-strategy", () => {
  const io = (stdout = new PassThrough()): CliIo => ({
    stdout,
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    env: { NOTIFICATION_HANDLERS_API_KEY: "nhk_unit_not_a_real_key" },
    cwd: "/nonexistent-export-parent",
    onSignal: () => undefined,
  });
  const base = ["--base-url", "https://status.example.com", "--out", "handlers"];

  it("refuses a value other than in-place or replace as a usage error (exit code 2) naming both", async () => {
    const bad = exportCommand([...base, "--update-strategy", "fast"], io(), "0.1.0");
    await expect(bad).rejects.toBeInstanceOf(UsageError);
    await expect(bad).rejects.toThrow(/^--update-strategy must be in-place or replace, got "fast"$/);
  });

  it("refuses the option without a value", async () => {
    await expect(exportCommand([...base, "--update-strategy"], io(), "0.1.0")).rejects.toThrow(
      /--update-strategy/,
    );
  });

  it("is described in the usage text", async () => {
    const stdout = new PassThrough();
    let text = "";
    stdout.setEncoding("utf8").on("data", (t: string) => (text += t));
    expect(await exportCommand(["--help"], io(stdout), "0.1.0")).toBe(0);
    expect(text).toContain("[--update-strategy in-place|replace]");
    expect(text).toContain("Default: replace when the site answers as a deployed instance");
  });
});
