/**
 * examples/go on the user's path, as with a release: go.mod with no `replace`, the README's
 * `go get` taking the Go SDK from the repository's tag `sdk/go/v0.2.0` (a bare clone tagged by the
 * release's own code) and checking it against go.sum (a schema or generator change moves the SDK's
 * sums: `npm run pins:update -- --go-sdk`), the plugin downloaded by the engine from the release, and
 * nothing else fetched but the registries `goSdkRegistries` names; the program builds with the
 * machine's Go caches (see `program-on-two-sites.ts` for what is run and checked). The oldest Go SDK
 * the package accepts comes from the Go module proxy, and compiles once on a machine.
 */
import { onOldestGoSdk } from "../support/engine/oldest-sdks";
import { describeProgramOnTwoSites } from "../support/engine/program-on-two-sites";
import { goSdkRegistries } from "../support/stand-ins/sdk-registries";

describeProgramOnTwoSites({
  example: "go",
  installed: ["go: downloading github.com/notification-handlers/pulumi-notification-handlers/sdk/go v0.2.0"],
  registries: goSdkRegistries,
  toOldestSdk: onOldestGoSdk,
});
