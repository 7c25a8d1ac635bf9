/** What a plugin of this package says of itself: GetPluginInfo (its version) and GetSchema. */
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { GetSchemaResponse } from "@pulumi/pulumi/proto/provider_pb";

import { pluginDownloadUrl } from "../tokens";
import { pulumiSchema } from "./schema";
import type { ServedMethods } from "./serve";
import { unary } from "./unary";

/** The GetPluginInfo and GetSchema methods of this version. */
export function packageInfo(version: string): Pick<ServedMethods, "getPluginInfo" | "getSchema"> {
  return {
    getPluginInfo: unary(() => new PluginInfo().setVersion(version)),
    getSchema: unary(() =>
      new GetSchemaResponse().setSchema(
        JSON.stringify({ ...pulumiSchema(), version, pluginDownloadURL: pluginDownloadUrl(version) }),
      ),
    ),
  };
}
