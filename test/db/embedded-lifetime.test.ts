// The embedded PostgreSQL never outlives faultline, and nothing else is signalled in its name
// (db/embedded-lifetime.ts, docs/decisions.md#embedded-server-pid-rechecked): the pid is checked again before the
// exit handler or the guard sends SIGINT, because a pid is reused once the server died on its own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { waitFor } from '../../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'fl-lifetime-'));
const other = mkdtempSync(join(tmpdir(), 'fl-lifetime-other-'));

/** A process standing in for one: node idling with these arguments on its command line. */
function stand(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)', '--', ...args], { stdio: 'ignore' });
}

const alive = (p: ChildProcess) => p.exitCode === null && p.signalCode === null;

/** Ties `victims` to a holder process that exits or is SIGKILLed, and waits until every guard shell is gone. */
async function holdAndEnd(how: 'exit' | 'kill', victims: [ChildProcess, string][]): Promise<void> {
  const holder = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'tie-holder.ts'), how === 'exit' ? 'exit' : 'wait',
    ...victims.map(([p, d]) => `${p.pid}:${d}`)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(holder.stdout!, 'data') as [Buffer];
  assert.is(line.toString().trim(), 'tied');
  if (how === 'kill') holder.kill('SIGKILL');
  if (holder.exitCode === null && holder.signalCode === null) await once(holder, 'exit');
  const pids = victims.map(([p]) => String(p.pid));
  await waitFor('the guard shells to finish', () => !guardsFor(pids));
}

/** Whether a guard shell for one of these pids still runs. */
function guardsFor(pids: string[]): boolean {
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    let args: string[];
    try { args = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0'); } catch { continue; }
    if (args[0] === 'sh' && args[1] === '-c' && args[2]?.includes('kill -INT') && pids.includes(args[3]!)) return true;
  }
  return false;
}

for (const how of ['exit', 'kill'] as const) {
  test(`${how === 'exit' ? 'an exit' : 'a SIGKILL'} of faultline stops its server and signals no process that is not it`, async () => {
    const server = stand('postgres', '-D', dir);
    const notPostgres = stand('-D', dir); // the pid reused by another program
    const otherServer = stand('postgres', '-D', other); // or by another PostgreSQL
    try {
      await holdAndEnd(how, [[server, dir], [notPostgres, dir], [otherServer, dir]]);
      await waitFor('the server to get SIGINT', () => !alive(server));
      assert.is(server.signalCode, 'SIGINT');
      assert.ok(alive(notPostgres), 'a process that is no postgres is not signalled');
      assert.ok(alive(otherServer), 'a postgres of another directory is not signalled');
    } finally {
      for (const p of [server, notPostgres, otherServer]) p.kill('SIGKILL');
    }
  });
}

test.after(() => { rmSync(dir, { recursive: true, force: true }); rmSync(other, { recursive: true, force: true }); });

test.run();
