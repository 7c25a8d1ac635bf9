/** The part of the client the provider uses, `client.notificationHandlers`: what tests replace with fakes. */
import type { NotificationHandlers } from "../../sdk/client/domain/resources/notification-handlers";

export type HandlersApi = Pick<NotificationHandlers, "list" | "retrieve" | "create" | "update" | "delete">;
