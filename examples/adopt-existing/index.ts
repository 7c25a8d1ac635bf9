import * as pulumi from "@pulumi/pulumi";
import { NotificationHandler } from "pulumi-notification-handlers";

const config = new pulumi.Config();

// Takes over the one existing email handler named "Ops email" (creates it when there is none),
// then brings it to this state.
const ops = new NotificationHandler("ops-email", {
  type: "email",
  name: "Ops email",
  email: config.require("opsEmail"),
  adopt: true,
});

// Takes over the handler with this id, whatever its name, and renames it.
const adoptId = config.getNumber("webhookId");
const webhook =
  adoptId === undefined
    ? undefined
    : new NotificationHandler("deploy-webhook", {
        type: "webhook",
        name: "Deploy webhook",
        webhook: config.requireSecret("webhookUrl"),
        adopt: adoptId,
      });

export const opsId = ops.handlerId;
export const webhookId = webhook?.handlerId;
