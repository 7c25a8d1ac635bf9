/**
 * The provider's source as every resource records it (`__provider`), run as Pulumi's
 * dynamic-provider host runs it (a module of its own, `require` resolving from the host's working
 * folder), over a table of what resolves from which folder: the contract it names, the folders it
 * tries, the messages for a package that is missing or too old, and the contract-1 source of 0.1.0,
 * which the runtime keeps serving.
 */
import { isAbsolute, posix } from "node:path";
import { runInNewContext } from "node:vm";

import { describe, expect, it } from "vitest";

import { CONTRACT_1_SOURCE, PACKAGE, providerSource } from "../../provider/provider-source";
import * as runtime from "../../provider/runtime";
import { fallbackFolder, RUNTIME_REQUEST, type ResolveFrom } from "../../provider/source-record";
import { STATE_CONTRACT } from "../../provider/state-contract";

const PROJECT = "/home/ci/project";

/** A copy of the package as seen from one folder: its runtime module and its version. */
interface Installed {
  runtime: object;
  version: string;
}

/** Runs `source` in a host whose working folder is `cwd`, where `installed` says what each folder finds. */
function handlerOf(source: string, cwd: string, installed: Record<string, Installed>): unknown {
  const at = (request: string, folder: string): string => {
    if (!(folder in installed))
      throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
    return `${folder}#${request}`;
  };
  const required: Record<string, unknown> = { path: { resolve: (p: string) => posix.resolve(cwd, p) } };
  const fakeRequire = Object.assign(
    (id: string): unknown => {
      if (id in required) return required[id];
      const [folder = "", request] = id.split("#");
      const copy = installed[folder];
      if (copy === undefined) throw new Error(`not resolved: ${id}`);
      return request === `${PACKAGE}/package.json` ? { version: copy.version } : copy.runtime;
    },
    {
      // Node's resolution from each of `paths` in turn, relative ones from the working folder.
      resolve: (request: string, options: { paths: string[] }) => {
        for (const folder of options.paths) {
          try {
            return at(request, posix.resolve(cwd, folder));
          } catch {
            // not found from there
          }
        }
        return at(request, "");
      },
    },
  );
  const exports: { handler?: () => unknown } = {};
  runInNewContext(source, { exports, require: fakeRequire, process: { cwd: () => cwd } });
  if (exports.handler === undefined) throw new Error("the source exports no handler");
  return exports.handler();
}

const CURRENT: Installed = { runtime, version: "0.2.0" };
/** 0.1.0's runtime: `provider` only, no contract list. */
const RELEASE_0_1_0: Installed = { runtime: { provider: runtime.provider }, version: "0.1.0" };

describe("the source new states record", () => {
  const source = providerSource({ version: "0.2.0", folder: "team-handlers" });

  it("names its contract, the version that wrote it and the folders it tries, none of them absolute", () => {
    expect(STATE_CONTRACT).toBe(2);
    expect(source).toContain(`.forContract(${STATE_CONTRACT})`);
    expect(source).toContain("pulumi-notification-handlers@0.2.0");
    expect(source).toContain('{paths:[".","team-handlers"]}');
    expect(providerSource({ version: "0.2.0" })).toContain('{paths:["."]}');
    const folders = JSON.parse(/paths:(\[.*?\])/.exec(source)?.[1] ?? "null") as string[];
    expect(folders.filter((folder) => isAbsolute(folder))).toEqual([]);
  });

  it("hands over the provider of the copy the project's folder finds by name", () => {
    const provider = handlerOf(source, PROJECT, { [PROJECT]: CURRENT }) as Record<string, unknown>;
    expect(provider).toBe(runtime.provider);
    for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"])
      expect(typeof provider[method], method).toBe("function");
  });

  it("falls back to the recorded folder, resolved from the working folder", () => {
    const provider = handlerOf(source, PROJECT, { [`${PROJECT}/team-handlers`]: CURRENT });
    expect(provider).toBe(runtime.provider);
  });

  const install = "this state needs `npm install pulumi-notification-handlers@0.2.0` in /home/ci/project";

  it("with an older package found first, says which version to install", () => {
    expect(() => handlerOf(source, PROJECT, { [PROJECT]: RELEASE_0_1_0 })).toThrow(install);
    const later = {
      runtime: { contracts: [1, 2, 3], forContract: () => "contract 3's provider" },
      version: "0.3.0",
    };
    const needs3 = providerSource({ version: "0.3.0" }).replace(
      `.forContract(${STATE_CONTRACT})`,
      ".forContract(3)",
    );
    expect(handlerOf(needs3, PROJECT, { [PROJECT]: later })).toBe("contract 3's provider");
    expect(() => handlerOf(needs3, PROJECT, { [PROJECT]: CURRENT })).toThrow(
      "this state needs `npm install pulumi-notification-handlers@0.3.0` in /home/ci/project",
    );
  });

  it("with no package anywhere, says where it is missing and what to install", () => {
    expect(() => handlerOf(source, PROJECT, {})).toThrow(install);
  });

  it("stays small: it is written into the inputs and the outputs of every resource", () => {
    expect(source.length).toBeLessThan(260);
  });
});

describe("the contract-1 source that 0.1.0 recorded", () => {
  it("still loads the runtime's provider by name", () => {
    expect(CONTRACT_1_SOURCE).toBe(
      'exports.handler = () => require("pulumi-notification-handlers/provider/runtime").provider;\n',
    );
    const required: string[] = [];
    const exports: { handler?: () => unknown } = {};
    runInNewContext(CONTRACT_1_SOURCE, {
      exports,
      require: (name: string) => {
        required.push(name);
        return runtime;
      },
    });
    expect(exports.handler?.()).toBe(runtime.provider);
    expect(required).toEqual([RUNTIME_REQUEST]);
  });

  it("is one of the contracts the runtime reads, with the same provider as the current one", () => {
    expect(runtime.contracts).toEqual([1, 2]);
    expect(runtime.forContract(1)).toBe(runtime.provider);
    expect(runtime.forContract(STATE_CONTRACT)).toBe(runtime.provider);
    expect(() => runtime.forContract(3)).toThrow("state contract 3 is not one this package reads (1, 2)");
  });
});

describe("the folder a state records for a nested install", () => {
  const own = (path: string): string =>
    `${PROJECT}/${path}/pulumi-notification-handlers/dist/provider/runtime.js`;
  /** A resolver that finds `runtime` from the folders listed, and nothing elsewhere. */
  const finding =
    (runtimePath: string, folders: string[]): ResolveFrom =>
    (request, folder) => {
      expect(request).toBe(RUNTIME_REQUEST);
      return folders.includes(folder) ? runtimePath : undefined;
    };

  it("is none when the project's folder finds this copy by name", () => {
    const path = own("node_modules");
    expect(fallbackFolder(PROJECT, path, finding(path, [PROJECT]))).toBeUndefined();
  });

  it("is the local package's folder whose node_modules hold it (npm)", () => {
    const path = own("team-handlers/node_modules");
    expect(fallbackFolder(PROJECT, path, finding(path, [`${PROJECT}/team-handlers`]))).toBe("team-handlers");
  });

  it("is the highest folder that finds it, so an upgrade in place keeps it valid (pnpm)", () => {
    const path = own("node_modules/.pnpm/pulumi-notification-handlers@0.2.0/node_modules");
    const finds = [
      `${PROJECT}/node_modules/.pnpm`,
      `${PROJECT}/node_modules/.pnpm/pulumi-notification-handlers@0.2.0`,
    ];
    expect(fallbackFolder(PROJECT, path, finding(path, finds))).toBe("node_modules/.pnpm");
    expect(fallbackFolder(PROJECT, path, finding(path, finds.slice(1)))).toBe(
      "node_modules/.pnpm/pulumi-notification-handlers@0.2.0",
    );
  });

  it("is none for a copy outside the project (never an absolute path), or one no folder finds", () => {
    const outside = "/opt/shared/node_modules/pulumi-notification-handlers/dist/provider/runtime.js";
    expect(fallbackFolder(PROJECT, outside, finding(outside, []))).toBeUndefined();
    const path = own("team-handlers/node_modules");
    expect(fallbackFolder(PROJECT, path, finding(path, []))).toBeUndefined();
  });

  it("is recorded when the project's folder finds another copy by name", () => {
    const path = own("team-handlers/node_modules");
    const other = own("node_modules");
    const resolve: ResolveFrom = (_request, folder) =>
      folder === PROJECT ? other : folder === `${PROJECT}/team-handlers` ? path : undefined;
    expect(fallbackFolder(PROJECT, path, resolve)).toBe("team-handlers");
  });
});
