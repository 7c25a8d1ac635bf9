/**
 * The emulation of deployed instances (docs/api.md#deployed): a layer over the reference routes and
 * store that swaps how requests are read (rules), how answers look (presenter) and adds a few hooks.
 *
 * Where each deployed behaviour lives (docs/api.md#deployed, in its order):
 * - Errors: `errors.ts` (401 validation and plan-limit titles, string `"401"`, 404 for 405), the
 *   plan-limit checks in `writes.ts`, the HTML 404 of a switched-off feature in `feature-off.ts`.
 * - Writes: `writes.ts` (what create and update read and store: the 2025 and 2026 update defects,
 *   `is_enabled` read as PHP's `(int)`, cleaning at write time) and `presenters.ts` (the answers).
 * - Reads: `presenters.ts` (`is_enabled`, settings as a string, `email_is_confirmed`, `user_id`,
 *   whatsapp as an integer); the stored values are cleaned by `writes.ts`.
 * - Lists: `lists.ts`.
 * - Rate limit: `rate-limit.ts` (admin keys, the headers of a 429).
 */
import type { FastifyInstance } from "fastify";
import type { AuthenticatorOptions } from "../auth";
import type { Presenter } from "../presenter";
import type { Repository } from "../repository";
import type { HandlerRules } from "../routes/notification-handlers";
import { deployedPresenter } from "./presenters";
import { deployedAuthenticatorOptions, installDeployedRateLimitHeaders } from "./rate-limit";
import type { EmulatedVersion } from "./versions";
import { type SiteOptions, deployedRules } from "./writes";

export { EMULATED_VERSIONS, type EmulatedVersion, isEmulatedVersion } from "./versions";
export { installFeatureOff, isFeaturePath, sendFeatureOff } from "./feature-off";
export type { SiteOptions } from "./writes";

/** What the app swaps in to answer as a deployed version. */
interface Emulation {
  readonly presenter: Presenter;
  /** The rules over the app's store (a plan limit counts the user's handlers). */
  rules(repository: Repository): HandlerRules;
  readonly authenticatorOptions: AuthenticatorOptions;
  /** Adds the emulation's own hooks to the app. */
  install(app: FastifyInstance): void;
}

/** The emulation of `version`, for a site configured with `site`. */
export function emulation(version: EmulatedVersion, site: SiteOptions = {}): Emulation {
  return {
    presenter: deployedPresenter(version),
    rules: (repository) => deployedRules(version, repository, site),
    authenticatorOptions: deployedAuthenticatorOptions,
    install: installDeployedRateLimitHeaders,
  };
}
