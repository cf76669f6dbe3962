/**
 * Where the test bed's CPU goes while a contender works: CPU time of every
 * program the bench started (the control plane, KWOK, DynamoDB Local, the
 * product's stack, kube-controller-manager) and of the bench itself (the
 * SQS emulator, the convergence poller), read from Linux's /proc at the
 * start and the end of a window. On this 2-core bed they all share the
 * cores, so a contender's pace also depends on what the others burn. A
 * process that exits inside a window is not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { say } from './markdown.js';

/** The bench's own process: the SQS emulator and the pollers run in it. */
const SELF = 'bench (SQS emulator, poller)';

/** Names a child by its program; java is DynamoDB Local, node the stack. */
const programOf = (argv0: string): string => {
  const name = basename(argv0);
  if (name === 'java') return 'DynamoDB Local (java)';
  if (name === 'node') return "product's stack (node)";
  return name;
};

interface ProcessTicks {
  ppid: number;
  program: string;
  ticks: number;
}

/** Reads one process's parent, program and user + system ticks. */
const readProcess = (pid: string): ProcessTicks | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command, which may hold spaces: state is field 3.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return {
      ppid: Number(f[1]),
      program: programOf(argv0 ?? ''),
      ticks: Number(f[11]) + Number(f[12]),
    };
  } catch {
    return undefined; // gone, or not Linux
  }
};

/** CPU ticks by program of this process and its descendants, at one time. */
interface CpuMark {
  atMs: number;
  byProgram: Map<string, number>;
  machineBusy: number;
  machineTotal: number;
}

const markCpu = (): CpuMark => {
  const all = new Map<number, ProcessTicks>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const p = readProcess(pid);
    if (p !== undefined) all.set(Number(pid), p);
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
      if (p === process.pid) return true;
      p = all.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const byProgram = new Map<string, number>();
  for (const [pid, p] of all) {
    if (!inTree(pid)) continue;
    const program = pid === process.pid ? SELF : p.program;
    byProgram.set(program, (byProgram.get(program) ?? 0) + p.ticks);
  }
  const cpu = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    ?.split(/\s+/)
    .slice(1)
    .map(Number) ?? [0];
  const machineTotal = cpu.reduce((a, b) => a + b, 0);
  // idle and iowait are fields 4 and 5 of the cpu line.
  const machineBusy = machineTotal - (cpu[3] ?? 0) - (cpu[4] ?? 0);
  return { atMs: Date.now(), byProgram, machineBusy, machineTotal };
};

/** USER_HZ: Linux reports /proc times in 1/100 s. */
const TICKS_PER_SECOND = 100;

/**
 * Runs `work` and says how the CPU was spent meanwhile, program by
 * program, as seconds and as a share of one core; returns `work`'s result.
 * Off Linux it only runs `work`.
 */
export const withCpuAccount = async <T>(
  what: string,
  work: () => Promise<T>
): Promise<T> => {
  let before: CpuMark | undefined;
  try {
    before = markCpu();
  } catch {
    return work();
  }
  const result = await work();
  const after = markCpu();
  const seconds = (after.atMs - before.atMs) / 1000;
  const busy =
    (after.machineBusy - before.machineBusy) /
    Math.max(after.machineTotal - before.machineTotal, 1);
  const spent = [...after.byProgram]
    .map(([program, ticks]) => ({
      program,
      cpuS: (ticks - (before.byProgram.get(program) ?? 0)) / TICKS_PER_SECOND,
    }))
    .filter((p) => p.cpuS >= 0.05)
    .sort((a, b) => b.cpuS - a.cpuS);
  say(
    `${what}: CPU over ${seconds.toFixed(1)} s, machine ${(busy * 100).toFixed(0)} % busy: ${spent
      .map(
        (p) =>
          `${p.program} ${p.cpuS.toFixed(1)} s (${((100 * p.cpuS) / seconds).toFixed(0)} % of a core)`
      )
      .join(', ')}`
  );
  return result;
};
