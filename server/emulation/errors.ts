/**
 * Error answers of deployed instances (docs/api.md#deployed, "Errors"). The routes still throw the
 * reference `ApiError`s; this renderer turns them into what a deployed instance answers.
 */
import { ApiError, type ErrorRenderer, TITLES, errorBody, renderError } from "../errors";
import type { EmulatedVersion } from "./versions";

/** The titles deployed instances answer with, spelled as they spell them. */
const DEPLOYED_TITLES = {
  /** Validation failures from 2025 on. */
  requiredFields: "You must fill all the required fields.",
  /** Validation failures in 2023. */
  allFields: "You must fill all the fields.",
  /** An unknown or disabled type on create, and a plan limit ("Your", sic). */
  planLimit: "Your have exceeded the limits of your current plan.",
} as const;

/** The validation title of `version`. */
function validationTitle(version: EmulatedVersion): string {
  return version === "2023" ? DEPLOYED_TITLES.allFields : DEPLOYED_TITLES.requiredFields;
}

/** The 401 of an unknown or disabled type on create, or of a plan limit. */
export function planLimitExceeded(): ApiError {
  return new ApiError(401, [{ title: DEPLOYED_TITLES.planLimit }]);
}

/** Renders errors as `version` does; what docs/api.md#deployed does not list keeps the reference shape. */
export function deployedErrorRenderer(version: EmulatedVersion): ErrorRenderer {
  return (error) => {
    // docs/api.md#deployed-404-not-405: the reference 405 carries `Allow`; a deployed 404 does not.
    if (error.status === 405) return { status: 404, body: errorBody(ApiError.notFound()), headers: {} };
    // docs/api.md#deployed-validation-401: one entry, no detail, as deployed instances do not say
    // which field. A body that is not a form (415) reads as an empty form there, so it fails the
    // same way (docs/api.md#emulation-forms).
    if (error.status === 400 || error.status === 415) {
      return {
        status: 401,
        body: { errors: [{ title: validationTitle(version), status: 401 }] },
        headers: {},
      };
    }
    // docs/api.md#deployed-bearer-status-string: `"status": "401"`, a string.
    if (error.problems.some((problem) => problem.title === TITLES.missingBearer)) {
      return { status: 401, body: { errors: [{ title: TITLES.missingBearer, status: "401" }] } };
    }
    return renderError(error);
  };
}
