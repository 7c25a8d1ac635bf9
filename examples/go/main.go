// Notification handlers on two accounts, through the provider plugin and its Go SDK.
package main

import (
	"github.com/notification-handlers/pulumi-notification-handlers/sdk/go/notificationhandlers"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		slackWebhook := cfg.RequireSecret("slackWebhook")
		productionURL := cfg.Require("productionUrl")
		productionKey := cfg.RequireSecret("productionKey")

		// A handler this program does not manage, found by name on the default site.
		inbox := notificationhandlers.LookupNotificationHandlerOutput(ctx, notificationhandlers.LookupNotificationHandlerOutputArgs{
			Name: pulumi.String("Status inbox"),
		})

		oncall, err := notificationhandlers.NewNotificationHandler(ctx, "oncall", &notificationhandlers.NotificationHandlerArgs{
			Type:  notificationhandlers.HandlerTypeEmail,
			Name:  pulumi.String("On-call email"),
			Email: pulumi.String("oncall@example.com"),
		})
		if err != nil {
			return err
		}
		_, err = notificationhandlers.NewNotificationHandler(ctx, "team-slack", &notificationhandlers.NotificationHandlerArgs{
			Type:  notificationhandlers.HandlerTypeSlack,
			Name:  pulumi.String("Team Slack"),
			Slack: slackWebhook,
		})
		if err != nil {
			return err
		}
		_, err = notificationhandlers.NewNotificationHandler(ctx, "status-page", &notificationhandlers.NotificationHandlerArgs{
			Type:      notificationhandlers.HandlerTypeWebhook,
			Name:      pulumi.String("Status page"),
			Webhook:   pulumi.String("https://status.example.com/hooks/uptime"),
			IsEnabled: pulumi.Bool(false),
		})
		if err != nil {
			return err
		}

		// The team's handlers as data: one per entry of the YAML files, patterns relative to this folder.
		team, err := notificationhandlers.NewHandlerSet(ctx, "team", &notificationhandlers.HandlerSetArgs{
			Files: pulumi.StringArray{pulumi.String("handlers/*.yaml")},
		})
		if err != nil {
			return err
		}

		// A second account: an explicit provider, with its own address and key.
		production, err := notificationhandlers.NewProvider(ctx, "production", &notificationhandlers.ProviderArgs{
			BaseUrl: pulumi.String(productionURL),
			ApiKey:  productionKey,
		})
		if err != nil {
			return err
		}
		pager, err := notificationhandlers.NewNotificationHandler(ctx, "production-pager", &notificationhandlers.NotificationHandlerArgs{
			Type:   notificationhandlers.HandlerTypeTwilio,
			Name:   pulumi.String("Production pager"),
			Twilio: pulumi.String("+15551234567"),
		}, pulumi.Provider(production))
		if err != nil {
			return err
		}

		ctx.Export("oncallId", oncall.HandlerId)
		ctx.Export("pagerId", pager.HandlerId)
		ctx.Export("inboxId", inbox.HandlerId())
		ctx.Export("teamIds", team.HandlerIds)
		return nil
	})
}
