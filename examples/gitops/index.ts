import * as pulumi from "@pulumi/pulumi";
import { HandlerSet, NotificationHandler } from "pulumi-notification-handlers";

const config = new pulumi.Config();

// The handlers of the production site. A change here is a pull request: the preview workflow posts
// what it would do to the handlers as a comment, and merging it lets `pulumi up` apply it.
const oncall = new NotificationHandler("oncall-email", {
  type: "email",
  name: "On-call email",
  email: config.require("oncallEmail"),
});

const slack = new NotificationHandler("team-slack", {
  type: "slack",
  name: "Team Slack",
  slack: config.requireSecret("slackWebhook"),
});

// The service teams' handlers, as data in handlers/*.yaml.
const teams = new HandlerSet("teams", { files: ["handlers/*.yaml"] });

export const oncallId = oncall.handlerId;
export const slackId = slack.handlerId;
/** The ids of the teams' handlers, by key. */
export const teamHandlerIds = Object.fromEntries(
  Object.entries(teams.handlers).map(([key, handler]) => [key, handler.handlerId]),
);
