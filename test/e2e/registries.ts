/**
 * What the tests on the user's path install from, as one shape: the stand-ins' variables for the
 * user's shell, a check that each served what the README installed, and their end.
 */
import { basename, dirname, join } from "node:path";

import { expect } from "vitest";

import { pluginTarballName } from "../../scripts/build-plugin";
import {
  pluginDownloadEnvironment,
  startRefusingProxy,
  startReleaseServer,
} from "../../scripts/release-stand-in";

/** Loopback stand-ins for what a README installs from, as its commands see them. */
export interface Registries {
  /** The variables that point the README's commands at the stand-ins (`undefined` removes one). */
  env: Record<string, string | undefined>;
  /** Fails unless each stand-in served what the README installed, and nothing left the machine. */
  expectServed(): void;
  close(): Promise<void>;
}

/**
 * The project's GitHub release, the e2e set-up's `release` folder, served for the engine's plugin
 * download, behind a proxy that opens tunnels to `passes` only (the package registries the README
 * installs the rest from).
 */
export async function startPluginRelease(
  release: string,
  work: string,
  passes: readonly string[],
): Promise<Registries> {
  const server = await startReleaseServer(dirname(release), join(work, "tls"));
  const proxy = await startRefusingProxy(passes);
  const tarball = `/releases/download/${basename(release)}/${pluginTarballName(basename(release).slice(1))}`;
  return {
    env: pluginDownloadEnvironment(server, proxy),
    expectServed() {
      expect(server.requests.map((r) => `${r.method} ${r.target}`)).toEqual([`GET ${tarball}`]);
      expect(proxy.requests, "a request that left the machine").toEqual([]);
    },
    async close() {
      await server.close();
      await proxy.close();
    },
  };
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
