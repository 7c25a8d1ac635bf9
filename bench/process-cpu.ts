/**
 * Where the processor time of a Pulumi command goes, for `bench:engine`: the CPU time of this
 * process's descendants by role, read from `/proc` (Linux only) every 50 ms while the command runs.
 *
 * Roles: the engine (the `pulumi` process), the provider (the dynamic-provider process, `node
 * .../dynamic-provider`, or the plugin, `pulumi-resource-notification-handlers`), the program (`node
 * .../@pulumi/pulumi/cmd/run`), the language host (Node.js's or Pulumi YAML's), and the rest (the
 * plugin launcher scripts). A process's last moments before it exits fall between samples, so the
 * rest is taken as the exact total that the kernel adds up for reaped children (`cutime` and
 * `cstime` of this process) minus the sampled roles. Processes passed in `exclude` (the server,
 * measured by itself) are left out with their descendants.
 */
import { readFileSync, readdirSync } from "node:fs";

import { PLUGIN_EXECUTABLE } from "../provider/tokens";

/** CPU milliseconds by role. */
export interface DescendantCpuTimes {
  engine: number;
  provider: number;
  program: number;
  languageHost: number;
  other: number;
}

/** `/proc` counts CPU time in clock ticks; Linux's user-visible tick rate (`getconf CLK_TCK`) is 100. */
const MS_PER_TICK = 10;

interface Stat {
  comm: string;
  ppid: number;
  ticks: number;
  zombie: boolean;
}

function readStat(pid: number | "self"): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // exited meanwhile
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
  const close = text.lastIndexOf(")");
  const rest = text.slice(close + 2).split(" ");
  // Field 3 (state) is rest[0]; 14 and 15 (utime, stime) are rest[11] and rest[12].
  return {
    comm: text.slice(text.indexOf("(") + 1, close),
    ppid: Number(rest[1]),
    ticks: Number(rest[11]) + Number(rest[12]),
    zombie: rest[0] === "Z",
  };
}

/** CPU time of this process's reaped descendants, exact, in milliseconds. */
function reapedChildrenMs(): number {
  const text = readFileSync("/proc/self/stat", "utf8");
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[13]) + Number(rest[14])) * MS_PER_TICK;
}

/** Whether this machine has a `/proc` to read (Linux). */
export function canMeasureDescendants(): boolean {
  return readStat("self") !== undefined;
}

/** Samples the descendants' CPU time while running; {@link stop} gives it by role. */
export class DescendantCpu {
  /** The descendants seen, with their role and CPU time when last read. */
  private readonly last = new Map<number, { role: keyof DescendantCpuTimes; ms: number }>();
  /** Processes seen that do not descend from this one. */
  private readonly unrelated = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private readonly reapedAtStart = reapedChildrenMs();

  constructor(private readonly exclude: ReadonlySet<number>) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 50);
  }

  /** Stops sampling; call it after the processes measured have exited. */
  stop(): DescendantCpuTimes {
    clearInterval(this.timer);
    const times: DescendantCpuTimes = { engine: 0, provider: 0, program: 0, languageHost: 0, other: 0 };
    for (const { role, ms } of this.last.values()) times[role] += ms;
    const reaped = reapedChildrenMs() - this.reapedAtStart;
    const sampled = times.engine + times.provider + times.program + times.languageHost;
    times.other = Math.max(0, reaped - sampled);
    return times;
  }

  private sample(): void {
    // Only processes not seen before are looked at to learn whether they descend from this one;
    // the descendants are read again each time.
    const fresh = new Map<number, Stat>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const pid = Number(entry);
      if (this.last.has(pid) || this.unrelated.has(pid)) continue;
      const stat = readStat(pid);
      if (stat !== undefined) fresh.set(pid, stat);
    }
    const ours = (pid: number): boolean => pid === process.pid || this.last.has(pid);
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, stat] of fresh) {
        if (this.exclude.has(pid) || !ours(stat.ppid)) continue;
        this.record(pid, stat);
        fresh.delete(pid);
        grew = true;
      }
    }
    for (const pid of fresh.keys()) this.unrelated.add(pid);
    for (const pid of this.last.keys()) {
      const stat = readStat(pid);
      if (stat !== undefined) this.record(pid, stat);
    }
  }

  private record(pid: number, stat: Stat): void {
    // A process sampled between fork and exec shows its parent's name and command line (the
    // language host starts the program), so the role is looked at again each time; an exited one
    // (a zombie) shows none, and keeps the role it had.
    const known = this.last.get(pid)?.role;
    const role = known !== undefined && stat.zombie ? known : roleOf(pid, stat);
    this.last.set(pid, { role, ms: stat.ticks * MS_PER_TICK });
  }
}

function roleOf(pid: number, stat: Stat): keyof DescendantCpuTimes {
  if (stat.comm === "pulumi") return "engine";
  // An installed host is a program of its own (its name cut to 15 characters), the project's a script.
  if (stat.comm.startsWith("pulumi-language")) return "languageHost";
  let cmdline = "";
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    // exited meanwhile
  }
  if (cmdline.includes("dynamic-provider/index.js")) return "provider";
  // The plugin's name is cut in `comm` ("pulumi-resource"), as is every launcher script's.
  if (cmdline.includes(PLUGIN_EXECUTABLE)) return "provider";
  if (cmdline.includes("pulumi/cmd/run")) return "program";
  if (cmdline.includes("language-host/main.js")) return "languageHost";
  return "other";
}
