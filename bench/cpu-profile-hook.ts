/**
 * Preloaded by `bench:engine --cpu-prof DIR` (through NODE_OPTIONS) into the Node.js processes a
 * Pulumi command starts: in the dynamic-provider process and the program's process it records a CPU
 * profile, written as `DIR/<label>-<role>-<pid>.cpuprofile` (open it in Chrome's DevTools). The
 * engine ends the provider with SIGINT, which Node's own `--cpu-prof` does not survive, hence a
 * session of the inspector, stopped on the signal or at exit. Other processes are left alone.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

/** Where the profiles go, and what names the command they belong to. */
export const PROFILE_DIR_ENV = "BENCH_CPU_PROFILE_DIR";
export const PROFILE_LABEL_ENV = "BENCH_CPU_PROFILE_LABEL";

function roleOf(argv: readonly string[]): string | undefined {
  if (argv.some((a) => a.includes("dynamic-provider"))) return "provider";
  if (argv.some((a) => a.includes("pulumi/cmd/run"))) return "program";
  return undefined;
}

function profile(dir: string, role: string): void {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  let written = false;
  const write = (): void => {
    if (written) return;
    written = true;
    // An in-process session answers synchronously, so this completes before the process ends.
    session.post("Profiler.stop", (error, result) => {
      if (error !== null) return;
      const label = process.env[PROFILE_LABEL_ENV] ?? "command";
      writeFileSync(join(dir, `${label}-${role}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on("exit", write);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      write();
      process.exit(0);
    });
  }
}

const dir = process.env[PROFILE_DIR_ENV];
const role = roleOf(process.argv);
if (dir !== undefined && dir !== "" && role !== undefined) profile(dir, role);
