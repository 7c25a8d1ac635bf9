/**
 * A site with the feature switched off (docs/api.md#deployed-feature-off): an HTML 404 page
 * (`text/html`) for every path of the API, before authentication.
 */
import type { FastifyInstance, FastifyReply } from "fastify";

/** The page such a site answers: its generic web 404, not the API's JSON. */
export const FEATURE_OFF_PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Page not found</title></head>
<body><h1>404</h1><p>The page you are looking for does not exist.</p></body>
</html>
`;

const PREFIX = "/api/notification-handlers";

/** Whether a request URL (path and query) is a path of the notification-handlers API. */
export function isFeaturePath(url: string): boolean {
  const path = url.split("?", 1)[0] ?? "";
  return path === PREFIX || path.startsWith(`${PREFIX}/`);
}

/** Sends the HTML 404 page. */
export function sendFeatureOff(reply: FastifyReply): FastifyReply {
  return reply.code(404).type("text/html; charset=utf-8").send(FEATURE_OFF_PAGE);
}

/**
 * Answers every path of the API with the page, from the first hook, so no key is checked and no
 * request is counted. Register it before the routes.
 */
export function installFeatureOff(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    // Replying ends the request here; `done` runs only for the paths the switch leaves alone.
    if (isFeaturePath(request.url)) void sendFeatureOff(reply);
    else done();
  });
}
