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

export const handlerIds = {
  oncall: oncall.handlerId,
  slack: slack.handlerId,
  pager: pager.handlerId,
  inbox: inbox.handlerId,
};
