/**
 * examples/python on the user's path: yaml-program's handlers in Python, through the plugin and the
 * generated Python SDK, installed with pip into the virtual environment Pulumi.yaml names (see
 * `program-on-two-sites.ts` for what is run and checked).
 */
import { describeProgramOnTwoSites } from "./program-on-two-sites";

describeProgramOnTwoSites({
  example: "python",
  installed: ["Successfully installed", "pulumi_notification_handlers-0.2.0"],
});
