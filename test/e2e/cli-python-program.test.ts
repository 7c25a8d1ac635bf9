/**
 * examples/python on the user's path, as with a release: yaml-program's handlers in Python through
 * the plugin and the generated Python SDK. `pip install -r requirements.txt` takes the SDK from a
 * stand-in of PyPI (its wheel fetched from there, the only package the install adds to the seeded
 * virtual environment), and the first `pulumi up` downloads the plugin from a stand-in of the GitHub
 * release, nothing else leaving the machine (see `program-on-two-sites.ts` for what is run and checked).
 */
import { inject } from "vitest";

import { startPythonSdkIndex } from "../support/stand-ins/package-index";
import { describeProgramOnTwoSites } from "../support/engine/program-on-two-sites";
import { pluginRelease, together } from "../support/stand-ins/registries";

describeProgramOnTwoSites({
  example: "python",
  installed: [
    "Looking in indexes: http://127.0.0.1:",
    // Everything else is in the seeded environment at the version constraints.txt pins.
    "Successfully installed pulumi-notification-handlers-0.2.0\n",
  ],
  registries: async (work) =>
    together(
      // PyPI for any package the seeded environment lacks (none while constraints.txt and the
      // requirements agree).
      await pluginRelease(work, "pypi.org:443", "files.pythonhosted.org:443"),
      await startPythonSdkIndex(inject("release"), work),
    ),
});
