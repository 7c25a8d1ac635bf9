/**
 * What a Python or a Go project on the user's path installs the project's SDK from, with the public
 * registries its other packages may come from. Apart from registries.ts, which the stand-ins import
 * for its `Registries` type, so that no two files import each other.
 */
import { inject } from "vitest";

import { startGoSdkTag } from "./go-tag";
import { startPythonSdkIndex } from "./package-index";
import { pluginRelease, together, type Registries } from "./registries";

/** The Python SDK from a stand-in of PyPI, and the plugin from the release. */
export const pythonSdkRegistries = async (work: string): Promise<Registries> =>
  together(
    // PyPI for any package the seeded environment lacks (none while constraints.txt and the
    // requirements agree).
    await pluginRelease(work, "pypi.org:443", "files.pythonhosted.org:443"),
    await startPythonSdkIndex(inject("release"), work),
  );

/** The Go SDK from its tag in a bare clone, and the plugin from the release. */
export const goSdkRegistries = async (work: string): Promise<Registries> =>
  together(
    // The Go module proxy and checksum database for any of Pulumi's modules the machine's module
    // cache lacks.
    await pluginRelease(work, "proxy.golang.org:443", "sum.golang.org:443"),
    await startGoSdkTag(work),
  );
