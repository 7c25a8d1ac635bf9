/**
 * The project's names, defined once: the npm package's, the Pulumi package's and its type tokens (as
 * the plugin serves them and its schema declares them; Python, Go and YAML programs name the resource
 * and the functions by these), and the types the dynamic provider's resources are recorded under.
 * States hold several of these strings: each keeps its value for good. A leaf, so that what reads
 * previews and states (`notification-handlers summary`, `recover`) loads nothing else.
 */

/** The npm package's name, as every recorded state's provider source requires it. */
export const NPM_PACKAGE = "pulumi-notification-handlers";

/** The dynamic provider's runtime as every recorded state requires it: package.json exports this path. */
export const RUNTIME_MODULE = `${NPM_PACKAGE}/provider/runtime`;

/** The package name: the plugin is `pulumi-resource-<name>`, its configuration keys `<name>:<key>`. */
export const PACKAGE_NAME = "notification-handlers";

/** The plugin's executable, as the engine looks for it and as its tarball holds it. */
export const PLUGIN_EXECUTABLE = `pulumi-resource-${PACKAGE_NAME}`;

/** The resource's type token. */
export const HANDLER_RESOURCE_TOKEN = `${PACKAGE_NAME}:index:NotificationHandler`;

/** The schema's enum of handler types. */
export const HANDLER_TYPE_TOKEN = `${PACKAGE_NAME}:index:HandlerType`;

/** The schema's enum of update strategies. */
export const UPDATE_STRATEGY_TOKEN = `${PACKAGE_NAME}:index:UpdateStrategy`;

/** The schema's object type a lookup returns for one handler. */
export const HANDLER_INFO_TOKEN = `${PACKAGE_NAME}:index:NotificationHandlerInfo`;

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
 * GitHub release. A plain https URL, so no request goes to GitHub's rate-limited API
 * (docs/plugin.md#installing-the-plugin). The committed schema has `${VERSION}` in its place; each
 * SDK, and the schema a plugin serves, has its own version there ({@link pluginDownloadUrl}).
 */
export const PLUGIN_DOWNLOAD_URL = `${REPOSITORY_URL}/releases/download/v\${VERSION}`;

/**
 * The download URL of one version: what its SDKs send and its stacks' providers record. Not the
 * template, since `pulumi import` copies a provider's URL into the program it generates, where
 * `${VERSION}` would be an interpolation.
 */
export const pluginDownloadUrl = (version: string): string =>
  PLUGIN_DOWNLOAD_URL.replace("${VERSION}", version);

/** The dynamic provider's resource type, a dynamic resource's: `pulumi-nodejs:dynamic/<module>:<type>`. */
export const DYNAMIC_RESOURCE_TYPE = "pulumi-nodejs:dynamic/notification-handlers:NotificationHandler";

/** The handler resource's type in a state or a preview: the dynamic provider's, or the plugin's token. */
export const HANDLER_RESOURCE_TYPES: readonly string[] = [DYNAMIC_RESOURCE_TYPE, HANDLER_RESOURCE_TOKEN];

/** The dynamic provider's `HandlerSet` component type. */
export const DYNAMIC_HANDLER_SET_TYPE = "pulumi-notification-handlers:index:HandlerSet";
