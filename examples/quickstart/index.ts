import * as pulumi from "@pulumi/pulumi";
import { NotificationHandler } from "pulumi-notification-handlers";

const config = new pulumi.Config();

// Where the on-call rotation is paged; the address is plain config.
const oncall = new NotificationHandler("oncall-email", {
  type: "email",
  name: "On-call email",
  email: config.require("oncallEmail"),
});

// Webhook URLs are credentials: set them with `pulumi config set --secret`.
const slack = new NotificationHandler("team-slack", {
  type: "slack",
  name: "Team Slack",
  slack: config.requireSecret("slackWebhook"),
});

const pager = new NotificationHandler("pager-sms", {
  type: "twilio",
  name: "Pager SMS",
  twilio: config.require("pagerPhone"),
  isEnabled: config.getBoolean("pagerEnabled") ?? true,
});

const inbox = new NotificationHandler("status-inbox", {
  type: "internal_notification",
  name: "Status inbox",
});

// The handlers' ids in the API, for `pulumi stack output` (the README's drift steps use them).
export const oncallId = oncall.handlerId;
export const slackId = slack.handlerId;
export const pagerId = pager.handlerId;
export const inboxId = inbox.handlerId;
