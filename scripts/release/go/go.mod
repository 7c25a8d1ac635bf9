module github.com/notification-handlers/pulumi-notification-handlers/scripts/release/go

go 1.26.0

require golang.org/x/mod v0.43.0
