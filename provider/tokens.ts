/**
 * The Pulumi package's name and type tokens, as the plugin serves them and its schema declares them
 * (Python, Go and YAML programs name the resource and the functions by these).
 */

/** The package name: the plugin is `pulumi-resource-<name>`, its configuration keys `<name>:<key>`. */
export const PACKAGE_NAME = "notification-handlers";

/** The plugin's executable, as the engine looks for it and as its tarball holds it. */
export const PLUGIN_EXECUTABLE = `pulumi-resource-${PACKAGE_NAME}`;

/** The resource's type token. */
export const HANDLER_RESOURCE_TOKEN = `${PACKAGE_NAME}:index:NotificationHandler`;

/** The token of the lookup of one handler by name (and type). */
export const GET_HANDLER_TOKEN = `${PACKAGE_NAME}:index:getNotificationHandler`;

/** The token of the lookup of every handler that matches a filter. */
export const GET_HANDLERS_TOKEN = `${PACKAGE_NAME}:index:getNotificationHandlers`;

/** The `HandlerSet` component's type token: the plugin builds it through Construct. */
export const HANDLER_SET_TOKEN = `${PACKAGE_NAME}:index:HandlerSet`;

/** The project's repository on GitHub: its home page, and where its releases are published. */
export const REPOSITORY_URL = "https://github.com/notification-handlers/pulumi-notification-handlers";

/**
 * Where the engine downloads the plugin of the version an SDK asks for: the assets of that version's
 * GitHub release. A plain https URL, whose `${VERSION}` the engine fills in itself, so no request
 * goes to GitHub's rate-limited API (docs/plugin.md#installing-the-plugin).
 */
export const PLUGIN_DOWNLOAD_URL = `${REPOSITORY_URL}/releases/download/v\${VERSION}`;
