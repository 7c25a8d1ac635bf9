/**
 * A loopback stand-in for the npm registry, to install the release's packages as users do: `npm
 * publish --registry <url>` puts a package of the release in, `npm install` with
 * `npm_config_registry=<url>` takes it from there, and every other package is handed on to
 * registry.npmjs.org unchanged. It listens on 127.0.0.1, port 0, logs each request, and stops on
 * `close`.
 *
 * A plain node:http server of our own rather than verdaccio: nothing to install or configure, no
 * storage kept between runs, and its log is exactly the requests npm made.
 */
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { appendFileSync, existsSync } from "node:fs";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";

import { expect } from "vitest";

import { mustRun, type PackageSpecs } from "../../../scripts/support/user-project";
import type { Registries } from "./registries";

/** Where every package the stand-in does not hold comes from. */
const UPSTREAM = "https://registry.npmjs.org";

/** One request the stand-in answered. */
export interface RegistryRequest {
  method: string;
  /** The path, escapes decoded: `/@pulumi/pulumi`, `/name/-/name-1.0.0.tgz`. */
  path: string;
  status: number;
}

/** A running stand-in. */
export interface NpmRegistryStandIn {
  /** `http://127.0.0.1:PORT/`, for `npm_config_registry` and `--registry`. */
  url: string;
  /** What `npm publish` must authenticate with (see {@link publishTo}). */
  token: string;
  requests: RegistryRequest[];
  close(): Promise<void>;
}

/** A version as the registry serves it: its manifest, with where and how to check its tarball. */
interface Version {
  name: string;
  version: string;
  dist: { tarball: string; integrity: string; shasum: string };
  [field: string]: unknown;
}

/** What `npm publish` sends: one version and its tarball. */
interface PublishBody {
  name?: unknown;
  "dist-tags"?: Record<string, string>;
  versions?: Record<string, Partial<Version>>;
  _attachments?: Record<string, { data?: unknown }>;
}

/** A package's name and the rest of a registry path: `/@scope%2fname/-/file` is `@scope/name`, `/-/file`. */
function splitPath(url: string): { name: string; rest: string; path: string } {
  const path = decodeURIComponent(url.replace(/\?.*$/, ""));
  const match = /^\/((?:@[^/]+\/)?[^/@][^/]*)(\/.*)?$/.exec(path);
  return { name: match?.[1] ?? "", rest: match?.[2] ?? "", path };
}

const sha512 = (data: Buffer): string => `sha512-${createHash("sha512").update(data).digest("base64")}`;
const sha1 = (data: Buffer): string => createHash("sha1").update(data).digest("hex");

function answer(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

/** Hop-by-hop headers, and the credentials meant for the stand-in, which registry.npmjs.org must not get. */
const NOT_HANDED_ON = new Set([
  "host",
  "authorization",
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const handedOn = (headers: IncomingHttpHeaders): IncomingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !NOT_HANDED_ON.has(name)));

/** Passes a request to registry.npmjs.org and its answer back, as they are. */
function handOn(request: IncomingMessage, response: ServerResponse, agent: Agent): void {
  const upstream = httpsRequest(
    new URL(request.url ?? "/", UPSTREAM),
    { method: request.method, headers: handedOn(request.headers), agent },
    (reply) => {
      response.writeHead(reply.statusCode ?? 502, handedOn(reply.headers));
      reply.pipe(response);
    },
  );
  upstream.on("error", (error) => {
    if (response.headersSent) response.destroy(error);
    else answer(response, 502, { error: `${UPSTREAM}: ${error.message}` });
  });
  response.on("close", () => upstream.destroy());
  request.pipe(upstream);
}

/**
 * Starts a stand-in that holds the packages named in `own`: those are served from what was
 * published to it (nothing until then, never the public registry's), every other name is handed on.
 * With `log`, each request answered is appended to that file too, as `METHOD /path STATUS`, for tests
 * in other processes.
 */
export async function startNpmRegistry(own: readonly string[], log?: string): Promise<NpmRegistryStandIn> {
  const token = randomBytes(16).toString("hex");
  const requests: RegistryRequest[] = [];
  /** Each package's tags, versions and when each was published. */
  const packages = new Map<
    string,
    { tags: Record<string, string>; versions: Map<string, Version>; time: Record<string, string> }
  >();
  const tarballs = new Map<string, Buffer>();
  // Its own connections to registry.npmjs.org, closed with it.
  const agent = new Agent({ keepAlive: true });
  let url = "";

  /** `npm publish`: one new version of a package of `own`, its tarball checked against its manifest. */
  const publish = (name: string, body: PublishBody): [number, unknown] => {
    const versions = Object.entries(body.versions ?? {});
    const attachments = Object.values(body._attachments ?? {});
    const data = attachments[0]?.data;
    if (body.name !== name || versions.length !== 1 || attachments.length !== 1 || typeof data !== "string")
      return [400, { error: "a publish of one version of the package named in the path, with its tarball" }];
    const [[version, manifest]] = versions as [[string, Partial<Version>]];
    if (manifest.name !== name || manifest.version !== version)
      return [400, { error: `the manifest is not ${name}@${version}'s` }];
    const tarball = Buffer.from(data, "base64");
    const integrity = sha512(tarball);
    if (
      (manifest.dist?.integrity ?? integrity) !== integrity ||
      (manifest.dist?.shasum ?? sha1(tarball)) !== sha1(tarball)
    )
      return [400, { error: "the tarball is not the one the manifest's dist names" }];
    const held = packages.get(name) ?? { tags: {}, versions: new Map<string, Version>(), time: {} };
    if (held.versions.has(version))
      return [403, { error: `You cannot publish over the previously published versions: ${version}.` }];
    const file = `${name.replace(/^@[^/]+\//, "")}-${version}.tgz`;
    tarballs.set(`${name}/-/${file}`, tarball);
    // Without what names the publisher's machine (`_resolved`, `_from`: the tarball's path there).
    const served = Object.fromEntries(
      Object.entries(manifest).filter(([field]) => !["_resolved", "_from", "_integrity"].includes(field)),
    );
    held.versions.set(version, {
      ...served,
      name,
      version,
      dist: { tarball: `${url}${name}/-/${file}`, integrity, shasum: sha1(tarball) },
    });
    held.tags = { ...held.tags, ...body["dist-tags"] };
    held.time[version] = new Date().toISOString();
    packages.set(name, held);
    return [201, { ok: true, id: name }];
  };

  /** The packument of a package of `own`, as npm reads it (full and abbreviated alike). */
  const packument = (name: string): [number, unknown] => {
    const held = packages.get(name);
    if (held === undefined) return [404, { error: `${name} is not published here` }];
    return [
      200,
      {
        _id: name,
        name,
        "dist-tags": held.tags,
        versions: Object.fromEntries(held.versions),
        time: held.time,
      },
    ];
  };

  const serveOwn = async (request: IncomingMessage, response: ServerResponse, name: string, rest: string) => {
    if (request.method === "PUT" && rest === "") {
      if (request.headers.authorization !== `Bearer ${token}`) {
        answer(response, 401, { error: "publishing needs the stand-in's token" });
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let body: PublishBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as PublishBody;
      } catch {
        answer(response, 400, { error: "the body is not JSON" });
        return;
      }
      answer(response, ...publish(name, body));
      return;
    }
    if (request.method === "GET" && rest === "") {
      answer(response, ...packument(name));
      return;
    }
    const tarball = tarballs.get(`${name}${rest}`);
    if (request.method === "GET" && tarball !== undefined) {
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": tarball.length,
      });
      response.end(tarball);
      return;
    }
    answer(response, 404, { error: `${request.method} ${name}${rest}: not here` });
  };

  const server = createServer((request, response) => {
    const { name, rest, path } = splitPath(request.url ?? "/");
    response.on("finish", () => {
      requests.push({ method: request.method ?? "", path, status: response.statusCode });
      if (log !== undefined) appendFileSync(log, `${request.method} ${path} ${response.statusCode}\n`);
    });
    if (!own.includes(name)) {
      handOn(request, response, agent);
      return;
    }
    serveOwn(request, response, name, rest).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else answer(response, 500, { error: String(error) });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    token,
    requests,
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The environment a maintainer's npm runs in: the machine's, without the npm script variables of this run. */
const publisherEnvironment = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/** Publishes a packed tarball to the stand-in as a release would: `npm publish <tarball> --registry`. */
export async function publishTo(registry: NpmRegistryStandIn, tarball: string): Promise<void> {
  const auth = `--${registry.url.replace(/^http:/, "")}:_authToken=${registry.token}`;
  await mustRun("npm", ["publish", tarball, "--registry", registry.url, auth], {
    cwd: dirname(tarball),
    env: publisherEnvironment(),
  });
}

/**
 * The machine's npm cache, which a user's npm shares (see userEnvironment in
 * scripts/support/user-project.ts).
 */
const MACHINE_CACHE = join(homedir(), ".npm");

/** Where cacache keeps the content of an `sha512-...` integrity under a cache folder. */
function contentPath(cache: string, integrity: string): string {
  const hex = Buffer.from(integrity.replace(/^sha512-/, ""), "base64").toString("hex");
  return join(cache, "_cacache", "content-v2", "sha512", hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

/**
 * Makes `cache` an npm cache holding the tarballs of a lockfile's packages that the machine's cache
 * holds, and nothing else: the cache of a user who installed those pins before and never the
 * release, so that npm takes the release's packages from the registry (a cached tarball of the same
 * integrity would be taken instead) without downloading every pinned package again.
 */
export async function cacheOfPinnedPackages(cache: string, lockfile: string): Promise<void> {
  const { packages } = JSON.parse(await readFile(lockfile, "utf8")) as {
    packages: Record<string, { integrity?: string }>;
  };
  const integrities = new Set(
    Object.values(packages).flatMap(({ integrity }) => (integrity?.startsWith("sha512-") ? [integrity] : [])),
  );
  for (const integrity of integrities) {
    const from = contentPath(MACHINE_CACHE, integrity);
    if (!existsSync(from)) continue;
    const to = contentPath(cache, integrity);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
  }
}

/**
 * Gives each registry package of a lockfile its `resolved` URL on registry.npmjs.org, as npm's default
 * settings write it; npm sends such a URL to the registry it is configured with
 * (`replace-registry-host`). The committed lockfiles have none (`omit-lockfile-registry-resolved` where
 * they were written), and without them npm asks the registry about every package and downloads every
 * tarball again, cached or not.
 */
export async function addRegistryUrls(lockfile: string): Promise<void> {
  const lock = JSON.parse(await readFile(lockfile, "utf8")) as {
    packages: Record<string, { name?: string; version?: string; resolved?: string; link?: boolean }>;
  };
  for (const [place, entry] of Object.entries(lock.packages)) {
    if (!place.includes("node_modules/") || entry.link === true || entry.resolved !== undefined) continue;
    const name = entry.name ?? place.replace(/^.*node_modules\//, "");
    entry.resolved = `${UPSTREAM}/${name}/-/${name.replace(/^@[^/]+\//, "")}-${entry.version}.tgz`;
  }
  await writeFile(lockfile, `${JSON.stringify(lock, null, 2)}\n`);
}

/**
 * The release's npm packages (`packages`, packed) published to a stand-in of the registry, as
 * {@link Registries}: its variable sends a user's npm there, and every other package on to
 * registry.npmjs.org (or the machine's npm cache, which holds what earlier installs fetched). With
 * `log`, the stand-in's requests are appended to that file too.
 */
export async function startReleaseOnNpm(packages: PackageSpecs, log?: string): Promise<Registries> {
  const registry = await startNpmRegistry(Object.keys(packages), log);
  const tarballs = Object.values(packages).map((spec) => spec.replace(/^file:/, ""));
  try {
    await Promise.all(tarballs.map((tarball) => publishTo(registry, tarball)));
  } catch (error) {
    await registry.close();
    throw error;
  }
  return {
    env: { npm_config_registry: registry.url },
    expectServed() {
      const served = registry.requests
        .filter((r) => r.method === "GET" && r.status === 200)
        .map((r) => r.path);
      const provider = tarballs.find((t) => basename(t).startsWith("pulumi-notification-handlers-"));
      expect(served, "the provider's tarball from the stand-in").toContain(
        `/pulumi-notification-handlers/-/${basename(provider ?? "")}`,
      );
    },
    close: () => registry.close(),
  };
}
