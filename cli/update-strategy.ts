/**
 * The update strategy an exported project's provider runs with, and why. Deployed instances of 2025
 * and 2026 do not apply in-place updates (docs/api.md#deployed-update-workaround), while `replace` works on
 * every server, so the export picks `replace` when the account's list answered as a deployed instance
 * does: with `meta.total_results` instead of `meta.total` (docs/api.md#deployed-list-meta; the SDK's
 * `PageMeta.dialect`). That sign is in every list answer and needs no write; it cannot tell the
 * versions apart, so 2023 instances get `replace` too (it works there as well). `--update-strategy`
 * overrides the detection. No I/O.
 */
import type { ListDialect } from "../sdk/client/domain/whole-account";
import { CONFIG_KEYS } from "../provider/for-cli";
import { UPDATE_STRATEGIES, type UpdateStrategy } from "../sdk/client/domain/settings";

/** The strategy the export sets, what decided it, and what the site's lists looked like. */
export interface StrategyChoice {
  readonly strategy: UpdateStrategy;
  /** `option`: `--update-strategy`; `detected`: the list dialect. */
  readonly source: "option" | "detected";
  readonly dialect: ListDialect;
}

/** The option's value checked: one of {@link UPDATE_STRATEGIES}, else `undefined`. */
export function parseUpdateStrategy(value: string): UpdateStrategy | undefined {
  return UPDATE_STRATEGIES.find((strategy) => strategy === value);
}

/** `replace` for a deployed instance, the provider's default `in-place` otherwise; the option wins. */
export function chooseUpdateStrategy(
  option: UpdateStrategy | undefined,
  dialect: ListDialect,
): StrategyChoice {
  if (option !== undefined) return { strategy: option, source: "option", dialect };
  return { strategy: dialect === "deployed" ? "replace" : "in-place", source: "detected", dialect };
}

const DEPLOYED = "the site answered as a deployed instance (its list carries meta.total_results)";
const DEFECT = "whose 2025 and 2026 versions do not apply in-place updates";

/** Why the strategy was chosen, as a clause (no final period). */
export function strategyReason(choice: StrategyChoice): string {
  if (choice.source === "option") {
    return choice.strategy === "in-place" && choice.dialect === "deployed"
      ? `chosen with --update-strategy, although ${DEPLOYED}, ${DEFECT}`
      : "chosen with --update-strategy";
  }
  if (choice.dialect === "deployed") return `${DEPLOYED}, ${DEFECT}`;
  if (choice.dialect === "reference")
    return "the site answered as the reference server (its list carries meta.total)";
  return "the site's list showed no sign of a deployed instance";
}

/** The command's line about the strategy: which one, why, and how to choose the other. */
export function strategyLine(choice: StrategyChoice): string {
  const line = `Update strategy: ${choice.strategy}, ${strategyReason(choice)}.`;
  if (choice.source === "option") return line;
  const other = choice.strategy === "replace" ? "in-place" : "replace";
  return `${line} Pass --update-strategy ${other} to choose otherwise.`;
}

/**
 * The command that sets the strategy in a new stack, or none when it is the provider's default
 * (`in-place`), which a new stack has without it.
 */
export function strategyCommand(choice: StrategyChoice): string[] {
  return choice.strategy === "in-place"
    ? []
    : [`pulumi config set ${CONFIG_KEYS.updateStrategy} ${choice.strategy}`];
}
