package main

import (
	nh "github.com/notification-handlers/pulumi-notification-handlers/sdk/go/notificationhandlers"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")

		oncall, err := nh.NewNotificationHandler(ctx, "oncall", &nh.NotificationHandlerArgs{
			Type:  nh.HandlerTypeEmail,
			Name:  pulumi.String("On-call email"),
			Email: pulumi.String(cfg.Require("oncallEmail")),
		})
		if err != nil {
			return err
		}
		slack, err := nh.NewNotificationHandler(ctx, "team-slack", &nh.NotificationHandlerArgs{
			Type:  nh.HandlerTypeSlack,
			Name:  pulumi.String("Team Slack"),
			Slack: cfg.RequireSecret("slackWebhook"),
		})
		if err != nil {
			return err
		}
		pager, err := nh.NewNotificationHandler(ctx, "pager", &nh.NotificationHandlerArgs{
			Type:      nh.HandlerTypeTwilio,
			Name:      pulumi.String("Pager SMS"),
			Twilio:    pulumi.String("+15551234567"),
			IsEnabled: pulumi.Bool(false),
		})
		if err != nil {
			return err
		}

		ctx.Export("oncallId", oncall.HandlerId)
		ctx.Export("slackId", slack.HandlerId)
		ctx.Export("pagerId", pager.HandlerId)
		return nil
	})
}
