import * as pulumi from "@pulumi/pulumi";
import { type ConnectionArgs, NotificationHandler } from "pulumi-notification-handlers";

const config = new pulumi.Config();

// One connection per site: its URL, and the API key of the team's account there (a secret, kept
// encrypted in the state). Declared once, passed to every handler of that site.
const staging: ConnectionArgs = {
  baseUrl: config.require("stagingUrl"),
  apiKey: config.requireSecret("stagingKey"),
};
const production: ConnectionArgs = {
  baseUrl: config.require("productionUrl"),
  apiKey: config.requireSecret("productionKey"),
};

/** The handlers every site has; resource names carry the site, handler names need not. */
function siteHandlers(site: string, connection: ConnectionArgs) {
  const oncall = new NotificationHandler(`${site}-oncall`, {
    type: "email",
    name: "On-call email",
    email: `oncall+${site}@example.com`,
    connection,
  });
  const slack = new NotificationHandler(`${site}-slack`, {
    type: "slack",
    name: "Team Slack",
    slack: config.requireSecret("slackWebhook"),
    connection,
  });
  return { oncall, slack };
}

const onStaging = siteHandlers("staging", staging);
const onProduction = siteHandlers("production", production);

// Only production pages someone.
const pager = new NotificationHandler("production-pager", {
  type: "twilio",
  name: "Pager SMS",
  twilio: config.require("pagerPhone"),
  connection: production,
});

// The handlers' ids on each site, for `pulumi stack output` (the README's drift steps use them).
export const stagingOncallId = onStaging.oncall.handlerId;
export const stagingSlackId = onStaging.slack.handlerId;
export const productionOncallId = onProduction.oncall.handlerId;
export const productionSlackId = onProduction.slack.handlerId;
export const productionPagerId = pager.handlerId;
