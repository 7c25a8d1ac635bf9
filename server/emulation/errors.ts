/**
 * Error answers of deployed instances (CONTRACT.md Part B, "Errors"). The routes still throw the
 * reference `ApiError`s; this renderer turns them into what a deployed instance answers.
 */
import { ApiError, type ErrorRenderer, TITLES, errorBody, renderError } from "../errors";
import type { EmulatedVersion } from "./versions";

/** The titles deployed instances answer with, spelled as they spell them. */
export const DEPLOYED_TITLES = {
  /** Validation failures from 2025 on. */
  requiredFields: "You must fill all the required fields.",
  /** Validation failures in 2023. */
  allFields: "You must fill all the fields.",
  /** An unknown or disabled type on create, and a plan limit ("Your", sic). */
  planLimit: "Your have exceeded the limits of your current plan.",
} as const;

/** The validation title of `version`. */
export function validationTitle(version: EmulatedVersion): string {
  return version === "2023" ? DEPLOYED_TITLES.allFields : DEPLOYED_TITLES.requiredFields;
}

/** The 401 of an unknown or disabled type on create, or of a plan limit. */
export function planLimitExceeded(): ApiError {
  return new ApiError(401, [{ title: DEPLOYED_TITLES.planLimit }]);
}

/** Renders errors as `version` does; what Part B does not mention keeps the reference shape. */
export function deployedErrorRenderer(version: EmulatedVersion): ErrorRenderer {
  return (error) => {
    // Part B: "Unknown methods (PUT, PATCH), non-numeric ids and DELETE without an id answer 404,
    // not 405." The reference 405 carries `Allow`; a deployed 404 does not.
    if (error.status === 405) return { status: 404, body: errorBody(ApiError.notFound()), headers: {} };
    // Part B: "Validation failures answer 401 (not 400) with title `You must fill all the required
    // fields.` (older: `You must fill all the fields.`)". One entry, no detail: deployed instances
    // do not say which field. A body that is not a form (415) reads as an empty form there, so it
    // fails the same way.
    if (error.status === 400 || error.status === 415) {
      return {
        status: 401,
        body: { errors: [{ title: validationTitle(version), status: 401 }] },
        headers: {},
      };
    }
    // Part B: "A missing or malformed Bearer header answers `"status": "401"` as a string".
    if (error.problems.some((problem) => problem.title === TITLES.missingBearer)) {
      return { status: 401, body: { errors: [{ title: TITLES.missingBearer, status: "401" }] } };
    }
    return renderError(error);
  };
}
