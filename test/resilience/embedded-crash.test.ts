// Issue 41, 3b: the embedded default (`npm start`: embedded Postgres, in-process transport, spool inbox) loses
// nothing on a crash. 4,800 spool files (40 known-bad) are written while `faultline start` runs, and the process
// is SIGKILLed three times at different points of the flow and started again each time. Afterwards every good
// check-in is stored exactly once, each bad one is in rejected_messages exactly once, and no spool file is left
// (docs/pipeline.md#the-in-process-transport). Before the fix a spool file was removed as soon as its record was
// in memory, and two kills lost about 30% of the check-ins.
//
// Needs no servers of its own (the embedded default runs its own PostgreSQL); it sits with the resilience
// suites for its TALLY. SIGKILL leaves the embedded PostgreSQL running, as a crash of the Node process would:
// the next start uses it (db/embedded.ts), and the suite stops it at the end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedDatabaseUrl } from '../../db/embedded.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { reportTally } from '../helpers/tally.js';
import { buildMessages, compareWithSent, log, sleep, waitFor, type Outcome } from './rig.js';

const TOTAL = 4_800;
const BAD = 40;
/** Kill when this many spool files have been taken (removed) in all, so each crash lands mid-flow. */
const KILL_AT = [700, 2_000, 3_400];

const dataDir = mkdtempSync(join(tmpdir(), 'faultline-embedded-crash-'));
const inbox = join(dataDir, 'inbox');
const messages = buildMessages(TOTAL, BAD, 41);
const names = messages.map((_, i) => `m-${String(i).padStart(6, '0')}.json`);
let proc: FaultlineProcess | null = null;
let pool: pg.Pool | null = null;
let outcome: Outcome | null = null;
let faultsInjected = 0;
let written = 0;
let ports: Record<string, string> = {};

/** Files the running service took from the inbox so far (written and gone). */
const taken = () => written - readdirSync(inbox).filter((f) => f.endsWith('.json')).length;

async function start(): Promise<FaultlineProcess> {
  const p = startFaultline(['start'], {
    ...ports, DATA_DIR: dataDir, HOST: '', SIMULATE: '0', DEMO_DATA: '0', DEMO_OMS: '0',
    DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', INBOX_DIR: '', PIPELINE_SPLIT: '', FAULTLINE_FAILPOINTS: '',
  });
  await waitFor('faultline start', () => p.output().includes('Ctrl-C stops it'), { timeoutMs: 120_000, intervalMs: 100 }).catch((err: Error) => {
    throw new Error(`${err.message}\n--- output ---\n${p.output()}`);
  });
  return p;
}

/** Writes the spool files as a device gateway would (`.tmp`, then renamed), a slice every 200 ms (200 a second), whatever the service does. */
async function writeAll(): Promise<void> {
  for (let i = 0; i < TOTAL; i += 40) {
    for (let j = i; j < Math.min(TOTAL, i + 40); j++) {
      const tmp = join(inbox, `${names[j]}.tmp`);
      writeFileSync(tmp, messages[j]!.body);
      renameSync(tmp, join(inbox, names[j]!));
      written++;
    }
    await sleep(200);
  }
}

test.after(async () => {
  await proc?.stop('SIGKILL');
  await pool?.end().catch(() => {});
  // The embedded PostgreSQL outlived the killed processes: stop it (fast shutdown) before its files go.
  try {
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGINT');
    await waitFor('embedded PostgreSQL stopped', () => { try { process.kill(pid, 0); return false; } catch { return true; } }, { timeoutMs: 30_000 });
  } catch { /* not started, or gone */ }
  rmSync(dataDir, { recursive: true, force: true });
  reportTally('resilience/embedded-crash', {
    faultsInjected, messagesSent: TOTAL,
    messagesStored: outcome?.messagesStored ?? 0, duplicated: outcome?.duplicated ?? 0, lost: outcome ? outcome.lost : TOTAL,
  });
});

test('SIGKILL of `faultline start` three times while 4,800 spool files flow: every one stored once, no file left', async () => {
  mkdirSync(inbox, { recursive: true });
  ports = { PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), DNP3_PORT: String(await freePort()) };
  proc = await start();
  const writing = writeAll();
  for (const at of KILL_AT) {
    await waitFor(`${at} spool files taken`, () => taken() >= at, { timeoutMs: 300_000, intervalMs: 20 });
    proc.child.kill('SIGKILL');
    await proc.exited;
    faultsInjected++;
    log(`SIGKILL ${faultsInjected} with ${taken()} of ${written} written files taken`);
    proc = await start();
  }
  await writing;
  await waitFor('the inbox empty', () => readdirSync(inbox).length === 0, { timeoutMs: 300_000, intervalMs: 200 });
  // The pipeline done with what it took: the stored rows stop changing (so a loss below is the crashes', not the stop's).
  pool = new pg.Pool({ connectionString: embeddedDatabaseUrl(dataDir, Number(ports.EMBEDDED_PG_PORT)), max: 2 });
  let last = -1;
  await waitFor('the stored rows settled', async () => {
    const { rows } = await pool!.query<{ n: string }>(`select (select count(*) from device_records) + (select count(*) from rejected_messages) as n`);
    const settled = Number(rows[0]!.n) === last;
    last = Number(rows[0]!.n);
    return settled;
  }, { timeoutMs: 300_000, intervalMs: 3_000 });
  // A clean stop drains.
  const code = await proc.stop('SIGINT');
  assert.is(code, 0, `a drained exit\n${proc.output().slice(-3000)}`);
  proc = null;

  outcome = await compareWithSent({ pool }, messages);
  log(`sent ${TOTAL}, stored ${outcome.messagesStored}, lost ${outcome.lost}, duplicated ${outcome.duplicated}`);
  assert.equal(outcome.problems.slice(0, 20), [], 'every check-in stored once, every bad one dead-lettered once');
  assert.is(outcome.lost, 0);
  assert.is(outcome.duplicated, 0);
  assert.is(faultsInjected, KILL_AT.length);
});

test.run();
