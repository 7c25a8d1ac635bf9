import { HandlerSet } from "pulumi-notification-handlers";

// Every handler of every file under handlers/; the files are checked before anything changes.
const alerts = new HandlerSet("alerts", { files: ["handlers/*.yaml"] });

/** The handlers' ids in the API, by key. */
export const handlerIds = Object.fromEntries(
  Object.entries(alerts.handlers).map(([key, handler]) => [key, handler.handlerId]),
);
