import * as pulumi from "@pulumi/pulumi";
import { NotificationHandler } from "pulumi-notification-handlers";

const config = new pulumi.Config();

const oncall = new NotificationHandler("oncall", {
  type: "email",
  name: "On-call email",
  email: config.require("oncallEmail"),
});
const slack = new NotificationHandler("team-slack", {
  type: "slack",
  name: "Team Slack",
  slack: config.requireSecret("slackWebhook"),
});
const pager = new NotificationHandler("pager", {
  type: "twilio",
  name: "Pager SMS",
  twilio: "+15551234567",
  isEnabled: false,
});

export const oncallId = oncall.handlerId;
export const slackId = slack.handlerId;
export const pagerId = pager.handlerId;
