import * as pulumi from "@pulumi/pulumi";
import { NotificationHandler } from "pulumi-notification-handlers";

const config = new pulumi.Config();
// Credentials come from secret config; the defaults below are placeholders for a local server.
const secret = (key: string, placeholder: string): pulumi.Output<string> =>
  config.getSecret(key) ?? pulumi.secret(placeholder);

const handlers = [
  new NotificationHandler("email", { type: "email", email: "alerts@example.com" }),
  new NotificationHandler("webhook", {
    type: "webhook",
    webhook: secret("webhook", "https://example.com/hooks/uptime"),
  }),
  new NotificationHandler("slack", {
    type: "slack",
    slack: secret("slack", "https://hooks.slack.com/services/T0/B0/X"),
  }),
  new NotificationHandler("discord", {
    type: "discord",
    discord: secret("discord", "https://discord.com/api/webhooks/1/abc"),
  }),
  new NotificationHandler("telegram", {
    type: "telegram",
    telegram: secret("telegramToken", "123456:ABC-DEF_ghi"),
    telegramChatId: "-100200300",
  }),
  new NotificationHandler("microsoft-teams", {
    type: "microsoft_teams",
    microsoftTeams: secret("teams", "https://example.webhook.office.com/webhookb2/abc"),
  }),
  new NotificationHandler("google-chat", {
    type: "google_chat",
    googleChat: secret("googleChat", "https://chat.googleapis.com/v1/spaces/AAA/messages?key=k"),
  }),
  new NotificationHandler("x", {
    type: "x",
    xConsumerKey: secret("xConsumerKey", "consumer-key"),
    xConsumerSecret: secret("xConsumerSecret", "consumer-secret"),
    xAccessToken: secret("xAccessToken", "access-token"),
    xAccessTokenSecret: secret("xAccessTokenSecret", "access-token-secret"),
  }),
  new NotificationHandler("twilio-sms", { type: "twilio", twilio: "+15551230001" }),
  new NotificationHandler("twilio-call", { type: "twilio_call", twilioCall: "+15551230002" }),
  new NotificationHandler("whatsapp", { type: "whatsapp", whatsapp: "+15551230003" }),
  new NotificationHandler("internal", { type: "internal_notification", name: "Internal notifications" }),
];

export const handlerIds = handlers.map((h) => h.handlerId);
