// CPU seconds used by the infra servers (from /proc, pids in <INFRA_STATE_DIR>/run) and by this process, so a report
// can name the bottleneck: whoever burned the most CPU per second of wall time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { infraStateDir } from '../infra/endpoints.js';

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds of one process, with its children already exited (from /proc). */
export function pidCpuSeconds(pid: number): number {
  // /proc/<pid>/stat fields 14 to 17 (utime, stime, cutime, cstime), counted after the ")" that ends the
  // command name. cutime/cstime hold the children already exited and reaped (a Postgres backend whose
  // connection closed), which would otherwise drop out of the tree and make a delta negative.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS;
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds of a process and all its descendants (Postgres forks a backend per connection). */
export function treeCpuSeconds(pid: number): number {
  let total = 0;
  try { total += pidCpuSeconds(pid); } catch { return 0; }
  for (const child of childrenOf(pid)) total += treeCpuSeconds(child);
  return total;
}

const INFRA = ['kafka', 'registry', 'sqs', 'postgres'] as const;

/**
 * `stagePids`: faultline processes started by the bench, counted as `faultline`; the bench process itself (the
 * load generator) is then `bench`. Without them the stages run inside this process, which is `faultline`.
 * `apart`: some of those processes by role (`bridge`, `pipeline`), each also reported under its name; they
 * stay in the `faultline` total.
 */
export function cpuSnapshot(stagePids: readonly number[] = [], apart: Readonly<Record<string, number>> = {}): Record<string, number> {
  const snap: Record<string, number> = {};
  for (const name of INFRA) {
    try {
      const pid = Number(readFileSync(join(infraStateDir(), 'run', `${name}.pid`), 'utf8').trim());
      snap[name] = treeCpuSeconds(pid);
    } catch {
      snap[name] = 0;
    }
  }
  const own = process.cpuUsage();
  const ownSeconds = (own.user + own.system) / 1e6;
  if (stagePids.length === 0) snap.faultline = ownSeconds;
  else {
    snap.faultline = stagePids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
    snap.bench = ownSeconds;
  }
  for (const [role, pid] of Object.entries(apart)) snap[role] = treeCpuSeconds(pid);
  return snap;
}

export function cpuDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, Math.round(((after[k] ?? 0) - (before[k] ?? 0)) * 100) / 100]));
}

/**
 * Nanosecond CPU time of a process and its descendants, per process (every thread's /proc schedstat): finer than
 * the 10 ms ticks of /proc stat, for figures of a few milliseconds per request. Per process, so a delta can skip
 * a process that exited in between (its total would otherwise vanish from the sum).
 */
export function runtimeByPid(pid: number, into = new Map<number, number>()): Map<number, number> {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    into.set(pid, ns);
  } catch {
    return into; // exited meanwhile
  }
  for (const child of childrenOf(pid)) runtimeByPid(child, into);
  return into;
}

/** CPU seconds used between two runtimeByPid snapshots by the processes alive at the second (new ones in full). */
export function runtimeDeltaSeconds(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let ns = 0;
  for (const [pid, t] of after) ns += t - (before.get(pid) ?? 0);
  return ns / 1e9;
}
