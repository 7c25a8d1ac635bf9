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

import { CONTRACT_1_SOURCE, providerSource } from "../../provider/dynamic/provider-source";
import * as runtime from "../../provider/dynamic/runtime";
import { fallbackFolder, type ResolveFrom } from "../../provider/dynamic/source-record";
import { STATE_CONTRACT } from "../../provider/dynamic/state-contract";
import { NPM_PACKAGE, RUNTIME_MODULE } from "../../provider/tokens";

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
  const fakeRequire = Object.assign(
    (id: string): unknown => {
      // A name is resolved from the working folder, a resolved path names its folder.
      const [folder, request] = id.includes("#") ? id.split("#") : [cwd, id];
      const copy = installed[at(request ?? "", folder ?? "").split("#")[0] ?? ""];
      if (copy === undefined) throw new Error(`not resolved: ${id}`);
      return request === `${NPM_PACKAGE}/package.json` ? { version: copy.version } : copy.runtime;
    },
    {
      // Node's resolution from each of `paths` in turn, relative ones from the working folder.
      resolve: (request: string, options: { paths: string[] }) => {
        for (const folder of options.paths.slice(0, -1)) {
          try {
            return at(request, posix.resolve(cwd, folder));
          } catch {
            // not found from there
          }
        }
        return at(request, posix.resolve(cwd, options.paths.at(-1) ?? ""));
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
    expect(source).toContain(`.forContract(${STATE_CONTRACT},"0.2.0")`);
    expect(source).toContain('{paths:[".","team-handlers"]}');
    expect(providerSource({ version: "0.2.0" })).toBe(
      'exports.handler=()=>require("pulumi-notification-handlers/provider/runtime").forContract(2,"0.2.0");\n',
    );
    const folders = JSON.parse(/paths:(\[.*?\])/.exec(source)?.[1] ?? "null") as string[];
    expect(folders.filter((folder) => isAbsolute(folder))).toEqual([]);
  });

  it("hands over the provider of the copy the project's folder finds by name", () => {
    for (const recorded of [source, providerSource({ version: "0.2.0" })]) {
      const provider = handlerOf(recorded, PROJECT, { [PROJECT]: CURRENT }) as Record<string, unknown>;
      expect(provider).toBe(runtime.provider);
      for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"])
        expect(typeof provider[method], method).toBe("function");
    }
  });

  it("falls back to the recorded folder, resolved from the working folder", () => {
    const provider = handlerOf(source, PROJECT, { [`${PROJECT}/team-handlers`]: CURRENT });
    expect(provider).toBe(runtime.provider);
  });

  it("with a package too old for its contract, names the version that wrote it and what to install", () => {
    const needs3 = providerSource({ version: "0.3.0" }).replace(".forContract(2,", ".forContract(3,");
    expect(() => handlerOf(needs3, PROJECT, { [PROJECT]: CURRENT })).toThrow(
      "this state was written by pulumi-notification-handlers 0.3.0 under state contract 3; the installed " +
        "pulumi-notification-handlers reads contract 1, 2: run `npm install pulumi-notification-handlers@0.3.0` " +
        "(the version that wrote this state, or a later one)",
    );
  });

  it("with 0.1.0 installed, which reads contract 1 only, fails: it has no forContract", () => {
    expect(() => handlerOf(source, PROJECT, { [PROJECT]: RELEASE_0_1_0 })).toThrow(
      /forContract is not a function/,
    );
  });

  it("with no package, fails as Node does, naming the module", () => {
    expect(() => handlerOf(providerSource({ version: "0.2.0" }), PROJECT, {})).toThrow(
      `Cannot find module '${RUNTIME_MODULE}'`,
    );
  });

  it("is as short as contract 1's: it is written into the inputs and the outputs of every resource", () => {
    expect(providerSource({ version: "0.2.0" }).length).toBeLessThan(CONTRACT_1_SOURCE.length + 20);
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
    expect(required).toEqual([RUNTIME_MODULE]);
  });

  it("is one of the contracts the runtime reads, with the same provider as the current one", () => {
    expect(runtime.contracts).toEqual([1, 2]);
    expect(runtime.forContract(1)).toBe(runtime.provider);
    expect(runtime.forContract(STATE_CONTRACT)).toBe(runtime.provider);
    expect(() => runtime.forContract(3)).toThrow(
      "this state was written by pulumi-notification-handlers a later version under state contract 3",
    );
  });
});

describe("the folder a state records for a nested install", () => {
  const own = (path: string): string =>
    `${PROJECT}/${path}/pulumi-notification-handlers/dist/provider/runtime.js`;
  /** A resolver that finds `runtime` from the folders listed, and nothing elsewhere. */
  const finding =
    (runtimePath: string, folders: string[]): ResolveFrom =>
    (request, folder) => {
      expect(request).toBe(RUNTIME_MODULE);
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
