/**
 * Loopback stand-ins for what the engine reaches when it installs a plugin: the project's GitHub
 * release, served from a folder over HTTPS and HTTP/2 as GitHub serves its assets, and a proxy that
 * refuses every other request and notes where it was going. Both listen on 127.0.0.1, port 0, log
 * each request, and stop on `close`.
 */
import { once } from "node:events";
import { createReadStream } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from "node:http2";
import { type AddressInfo, type Socket, connect } from "node:net";
import { basename, dirname, join } from "node:path";

import { REPOSITORY_URL } from "../../provider/tokens";
import { pluginTarballName } from "./build-plugin";
import { mustRun } from "../support/user-project";

/** One request a stand-in saw. */
export interface Logged {
  method: string;
  /** The path asked for, or for the proxy the host and port (`CONNECT`) or the whole URL. */
  target: string;
  /** `2.0` when the client spoke HTTP/2. */
  httpVersion: string;
}

/** The release's stand-in: `https://127.0.0.1:PORT/releases/download/<tag>/<asset>` from a folder. */
export interface ReleaseServer {
  /** `https://127.0.0.1:PORT`, without a trailing slash. */
  url: string;
  /** The certificate to trust (`SSL_CERT_FILE`): the server's own, for 127.0.0.1 only. */
  certificate: string;
  requests: Logged[];
  close(): Promise<void>;
}

/** The proxy that lets nothing out but the tunnels it was told to open. */
export interface RefusingProxy {
  /** `http://127.0.0.1:PORT`, for `HTTPS_PROXY` and `HTTP_PROXY`. */
  url: string;
  /** What it refused. */
  requests: Logged[];
  close(): Promise<void>;
}

const port = (server: Server | Http2SecureServer): number => (server.address() as AddressInfo).port;

/**
 * Serves `<assets>/<tag>/<asset>` as `/releases/download/<tag>/<asset>`, with its length, as
 * GitHub's release downloads do. Over HTTP/2 because the engine's `--checksum` check (3.259) fails
 * on every HTTP/1.1 download of known length (docs/plugin.md#installing-the-plugin). The key and the
 * certificate are made for the run with `openssl`, in `work`.
 */
export async function startReleaseServer(assets: string, work: string): Promise<ReleaseServer> {
  await mkdir(work, { recursive: true });
  const key = join(work, "key.pem");
  const certificate = join(work, "certificate.pem");
  await mustRun(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"],
      ...["-keyout", key, "-out", certificate, "-days", "1"],
      ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    { cwd: work, env: process.env },
  );
  const requests: Logged[] = [];
  const sessions = new Set<ServerHttp2Session>();
  const server = createSecureServer(
    { key: await readFile(key), cert: await readFile(certificate), allowHTTP1: true },
    (request, response) => {
      const path = request.url;
      requests.push({ method: request.method, target: path, httpVersion: request.httpVersion });
      // Plain names only: no escapes, no `..`, nothing outside the folder.
      const asset = /^\/releases\/download\/(\w[\w.-]*)\/(\w[\w.-]*)$/.exec(path);
      if (request.method !== "GET" || asset === null) {
        response.writeHead(404).end();
        return;
      }
      const file = join(assets, asset[1]!, asset[2]!);
      stat(file).then(
        (info) => {
          response.writeHead(200, {
            "content-type": "application/octet-stream",
            "content-length": info.size,
          });
          createReadStream(file).pipe(response);
        },
        () => response.writeHead(404).end(),
      );
    },
  );
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `https://127.0.0.1:${port(server)}`,
    certificate,
    requests,
    async close() {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A proxy that answers every request, and every tunnel asked for with CONNECT, 403, but the tunnels
 * to the `host:port`s of `passes` (a package registry a test installs from), which it opens.
 */
export async function startRefusingProxy(passes: readonly string[] = []): Promise<RefusingProxy> {
  const requests: Logged[] = [];
  const tunnels = new Set<Socket>();
  const server = createHttpServer((request, response) => {
    requests.push({
      method: request.method ?? "",
      target: request.url ?? "",
      httpVersion: request.httpVersion,
    });
    response.writeHead(403).end();
  });
  server.on("connect", (request, socket: Socket, head: Buffer) => {
    const target = request.url ?? "";
    if (!passes.includes(target)) {
      requests.push({ method: "CONNECT", target, httpVersion: request.httpVersion });
      socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    const [host, portText] = target.split(":");
    const upstream = connect(Number(portText), host, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    for (const end of [socket, upstream]) {
      tunnels.add(end);
      end.on("close", () => tunnels.delete(end));
      end.on("error", () => (end === socket ? upstream : socket).destroy());
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${port(server)}`,
    requests,
    async close() {
      server.closeAllConnections();
      for (const tunnel of tunnels) tunnel.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `text` as a regular expression that matches it alone. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * What sends the engine's download of this project's plugin to `release`, and every other request of
 * a program's `pulumi` to `proxy`: the override's pattern names the project's own address only, since
 * the engine matches its fallbacks (get.pulumi.com) against the same overrides. Automatic plugin
 * acquisition is left on, as on a user's machine (a value of `undefined` removes a variable).
 */
export function pluginDownloadEnvironment(
  release: ReleaseServer,
  proxy: RefusingProxy,
): Record<string, string | undefined> {
  return {
    PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^${escapeRegExp(`${REPOSITORY_URL}/releases/download/`)}=${release.url}/releases/download/v\${VERSION}`,
    SSL_CERT_FILE: release.certificate,
    HTTPS_PROXY: proxy.url,
    HTTP_PROXY: proxy.url,
    https_proxy: proxy.url,
    http_proxy: proxy.url,
    // The stand-ins themselves are reached directly; the machine's own exceptions are dropped.
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: undefined,
  };
}

/** A release served for the engine's plugin download, behind a proxy that refuses the rest. */
export interface PluginRelease {
  /** The variables that send a program's `pulumi` there (`undefined` removes one). */
  env: Record<string, string | undefined>;
  /** Throws unless the release served its plugin's tarball, once, and nothing left the machine. */
  expectServed(): void;
  close(): Promise<void>;
}

/**
 * The release in `release`, a folder named by its tag (`v<version>`) holding the plugin's tarball of
 * the machine's platform, served for the engine's download; the proxy opens tunnels to `passes`
 * only (the package registries a program installs from). The key and certificate go to `work`.
 */
export async function startPluginRelease(
  release: string,
  work: string,
  passes: readonly string[],
): Promise<PluginRelease> {
  const server = await startReleaseServer(dirname(release), join(work, "tls"));
  const proxy = await startRefusingProxy(passes);
  const tarball = `GET /releases/download/${basename(release)}/${pluginTarballName(basename(release).slice(1))}`;
  return {
    env: pluginDownloadEnvironment(server, proxy),
    expectServed() {
      const served = server.requests.map((r) => `${r.method} ${r.target}`);
      if (served.length !== 1 || served[0] !== tarball || proxy.requests.length > 0)
        throw new Error(
          `the release served ${JSON.stringify(served)}, not [${JSON.stringify(tarball)}], ` +
            `and refused ${JSON.stringify(proxy.requests)} that would have left the machine`,
        );
    },
    async close() {
      await server.close();
      await proxy.close();
    },
  };
}
