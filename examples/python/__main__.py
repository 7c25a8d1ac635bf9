"""Notification handlers on two accounts, through the provider plugin and its Python SDK."""

import pulumi
import pulumi_notification_handlers as notification_handlers

config = pulumi.Config()
slack_webhook: pulumi.Output[str] = config.require_secret("slackWebhook")
production_url: str = config.require("productionUrl")
production_key: pulumi.Output[str] = config.require_secret("productionKey")

# A handler this program does not manage, found by name on the default site.
inbox = notification_handlers.get_notification_handler_output(name="Status inbox")

oncall = notification_handlers.NotificationHandler(
    "oncall",
    type=notification_handlers.HandlerType.EMAIL,
    name="On-call email",
    email="oncall@example.com",
)
notification_handlers.NotificationHandler(
    "team-slack",
    type=notification_handlers.HandlerType.SLACK,
    name="Team Slack",
    slack=slack_webhook,
)
notification_handlers.NotificationHandler(
    "status-page",
    type=notification_handlers.HandlerType.WEBHOOK,
    name="Status page",
    webhook="https://status.example.com/hooks/uptime",
    is_enabled=False,
)

# The team's handlers as data: one per entry of the YAML files, patterns relative to this folder.
team = notification_handlers.HandlerSet("team", files=["handlers/*.yaml"])

# A second account: an explicit provider, with its own address and key.
production = notification_handlers.Provider(
    "production",
    base_url=production_url,
    api_key=production_key,
)
production_pager = notification_handlers.NotificationHandler(
    "production-pager",
    type=notification_handlers.HandlerType.TWILIO,
    name="Production pager",
    twilio="+15551234567",
    opts=pulumi.ResourceOptions(provider=production),
)

pulumi.export("oncallId", oncall.handler_id)
pulumi.export("pagerId", production_pager.handler_id)
pulumi.export("inboxId", inbox.handler_id)
pulumi.export("teamIds", team.handler_ids)
