/**
 * examples/go on the user's path: yaml-program's handlers in Go, through the plugin and the generated
 * Go SDK, which go.mod takes from the checkout with a `replace`; the program builds with the machine's
 * Go caches (see `program-on-two-sites.ts` for what is run and checked).
 */
import { describeProgramOnTwoSites } from "./program-on-two-sites";

describeProgramOnTwoSites({ example: "go", installed: [] });
