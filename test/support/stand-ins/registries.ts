/**
 * What the tests on the user's path install from, as one shape: the stand-ins' variables for the
 * user's shell, a check that each served what the README installed, and their end.
 */
import { inject } from "vitest";

import { startPluginRelease } from "../../../scripts/release/stand-in";

/** Loopback stand-ins for what a README installs from, as its commands see them. */
export interface Registries {
  /** The variables that point the README's commands at the stand-ins (`undefined` removes one). */
  env: Record<string, string | undefined>;
  /** Fails unless each stand-in served what the README installed, and nothing left the machine. */
  expectServed(): void;
  close(): Promise<void>;
}

/** Several stand-ins as one: their variables together, each checked, all closed. */
export function together(...parts: Registries[]): Registries {
  return {
    env: Object.assign({}, ...parts.map((part) => part.env)) as Registries["env"],
    expectServed() {
      for (const part of parts) part.expectServed();
    },
    async close() {
      await Promise.all(parts.map((part) => part.close()));
    },
  };
}

/**
 * The project's GitHub release (the e2e set-up's `release` folder) served for the engine's plugin
 * download, behind a proxy open to the package registries the README installs the rest from: npm's
 * registry, for the servers' dependencies, and `passes`.
 */
export const pluginRelease = (work: string, ...passes: string[]): Promise<Registries> =>
  startPluginRelease(inject("release"), work, ["registry.npmjs.org:443", ...passes]);
