import pulumi
import pulumi_notification_handlers as notification_handlers

config = pulumi.Config()

oncall = notification_handlers.NotificationHandler(
    "oncall",
    type=notification_handlers.HandlerType.EMAIL,
    name="On-call email",
    email=config.require("oncallEmail"),
)
slack = notification_handlers.NotificationHandler(
    "team-slack",
    type=notification_handlers.HandlerType.SLACK,
    name="Team Slack",
    slack=config.require_secret("slackWebhook"),
)
pager = notification_handlers.NotificationHandler(
    "pager",
    type=notification_handlers.HandlerType.TWILIO,
    name="Pager SMS",
    twilio="+15551234567",
    is_enabled=False,
)

pulumi.export("oncallId", oncall.handler_id)
pulumi.export("slackId", slack.handler_id)
pulumi.export("pagerId", pager.handler_id)
