// What a benchmark ran on: printed with every report so numbers are never read without their context.
import { execSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

export interface MachineInfo { node: string; cpu: string; cores: number; memoryGiB: number; commit: string; date: string }

export function machineInfo(): MachineInfo {
  let commit = 'unknown';
  try { commit = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim(); } catch { /* not a checkout */ }
  return { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), commit, date: new Date().toISOString() };
}
