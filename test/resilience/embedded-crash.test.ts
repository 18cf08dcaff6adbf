// Issue 41, 3b: the embedded default (`npm start`: embedded Postgres, in-process transport, spool inbox) loses
// nothing on a crash. 4,800 spool files (40 known-bad) are written while `faultline start` runs, and the process
// is SIGKILLed three times at different points of the flow and started again each time. Afterwards every good
// check-in is stored exactly once, each bad one is in rejected_messages exactly once, and no spool file is left
// (docs/pipeline.md#the-in-process-transport). Before the fix a spool file was removed as soon as its record was
// in memory, and three kills lost 646 check-ins. The same with the SQS bridge in front of the in-process
// transport (the test SQS server from infra/): two kills while 2,400 messages flow.
//
// The embedded default runs its own PostgreSQL. A SIGKILL of faultline stops it too (db/embedded-lifetime.ts);
// the next start waits for it to finish stopping and starts it again. The suite stops any left at the end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedDatabaseUrl } from '../../db/embedded.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { reportTally } from '../helpers/tally.js';
import { buildMessages, compareWithSent, createQueue, dropQueue, env, log, newSqsClient, queueDepth, randomName, sleep, startSender, waitFor, type Outcome, type Outgoing } from './rig.js';

const TOTAL = 4_800;
const BAD = 40;
/** Kill when this many spool files have been taken (removed) in all, so each crash lands mid-flow. */
const KILL_AT = [700, 2_000, 3_400];

const messages = buildMessages(TOTAL, BAD, 41);
const names = messages.map((_, i) => `m-${String(i).padStart(6, '0')}.json`);
const SQS_TOTAL = 2_400;
const SQS_KILL_AT = [700, 1_600];
const sqsMessages = buildMessages(SQS_TOTAL, 20, 42);
const sqs = newSqsClient();
let queueUrl = '';
const instances: Embedded[] = [];
let faultsInjected = 0;
const outcomes: Outcome[] = [];
let written = 0;

/** One embedded default in a data directory of its own, started again after each kill. */
interface Embedded {
  dataDir: string;
  proc: FaultlineProcess | null;
  pool: pg.Pool | null;
  start(): Promise<FaultlineProcess>;
  /** SIGKILL, as the OOM killer would, then start again. */
  crash(): Promise<void>;
  /** Waits until the stored rows stop changing, compares with what was sent, then stops cleanly (exit 0 asserted). */
  finish(sent: Outgoing[]): Promise<Outcome>;
}

async function embedded(extraEnv: Record<string, string>): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'faultline-embedded-crash-'));
  const ports = { PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), DNP3_PORT: String(await freePort()) };
  const self: Embedded = {
    dataDir, proc: null, pool: null,
    async start() {
      const p = startFaultline(['start'], {
        ...ports, DATA_DIR: dataDir, HOST: '', SIMULATE: '0', DEMO_DATA: '0', DEMO_OMS: '0',
        DATABASE_URL: '', KAFKA_BROKERS: '', SQS_QUEUE_URL: '', INBOX_DIR: '', PIPELINE_SPLIT: '', FAULTLINE_FAILPOINTS: '', ...extraEnv,
      });
      self.proc = p;
      await waitFor('faultline start', () => p.output().includes('Ctrl-C stops it'), { timeoutMs: 120_000, intervalMs: 100 }).catch((err: Error) => {
        throw new Error(`${err.message}\n--- output ---\n${p.output()}`);
      });
      return p;
    },
    async crash() {
      self.proc!.child.kill('SIGKILL');
      await self.proc!.exited;
      faultsInjected++;
      await self.start();
    },
    async finish(sent) {
      // The pipeline done with what it took: the stored rows stop changing (so a loss is the crashes', not the stop's).
      const pool = self.pool = new pg.Pool({ connectionString: embeddedDatabaseUrl(dataDir, Number(ports.EMBEDDED_PG_PORT)), max: 2 });
      pool.on('error', () => {}); // an idle client cut by a stopping server is not the suite's failure
      let last = -1;
      await waitFor('the stored rows settled', async () => {
        const { rows } = await pool.query<{ n: string }>(`select (select count(*) from device_records) + (select count(*) from rejected_messages) as n`);
        const settled = Number(rows[0]!.n) === last;
        last = Number(rows[0]!.n);
        return settled;
      }, { timeoutMs: 300_000, intervalMs: 3_000 });
      // Compared before the stop: the faultline started last owns the database and stops it with its drain.
      const outcome = await compareWithSent({ pool }, sent);
      await pool.end();
      self.pool = null;
      const code = await self.proc!.stop('SIGINT');
      assert.is(code, 0, `a drained exit\n${self.proc!.output().slice(-3000)}`);
      self.proc = null;
      outcomes.push(outcome);
      log(`sent ${sent.length}, stored ${outcome.messagesStored}, lost ${outcome.lost}, duplicated ${outcome.duplicated}`);
      return outcome;
    },
  };
  instances.push(self);
  return self;
}

/** Stops the embedded PostgreSQL if one is still running (fast shutdown), then removes its files. */
async function remove(e: Embedded): Promise<void> {
  await e.proc?.stop('SIGKILL');
  await e.pool?.end().catch(() => {});
  try {
    const pid = Number(readFileSync(join(e.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGINT');
    await waitFor('embedded PostgreSQL stopped', () => { try { process.kill(pid, 0); return false; } catch { return true; } }, { timeoutMs: 30_000 });
  } catch { /* not started, or gone */ }
  rmSync(e.dataDir, { recursive: true, force: true });
}

/** Writes the spool files as a device gateway would (`.tmp`, then renamed), a slice every 200 ms (200 a second), whatever the service does. */
async function writeAll(inbox: string): Promise<void> {
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
  for (const e of instances) await remove(e);
  if (queueUrl) await dropQueue(sqs, queueUrl);
  const sent = TOTAL + SQS_TOTAL;
  const counted = outcomes.length === 2;
  reportTally('resilience/embedded-crash', {
    faultsInjected, messagesSent: sent,
    messagesStored: outcomes.reduce((n, o) => n + o.messagesStored, 0), duplicated: outcomes.reduce((n, o) => n + o.duplicated, 0),
    lost: counted ? outcomes.reduce((n, o) => n + o.lost, 0) : sent - outcomes.reduce((n, o) => n + o.messagesStored, 0),
  });
});

test('SIGKILL of `faultline start` three times while 4,800 spool files flow: every one stored once, no file left', async () => {
  const e = await embedded({});
  const inbox = join(e.dataDir, 'inbox');
  mkdirSync(inbox, { recursive: true });
  /** Files the running service took from the inbox so far (written and gone). */
  const taken = () => written - readdirSync(inbox).filter((f) => f.endsWith('.json')).length;
  await e.start();
  const writing = writeAll(inbox);
  for (const at of KILL_AT) {
    await waitFor(`${at} spool files taken`, () => taken() >= at, { timeoutMs: 300_000, intervalMs: 20 });
    log(`SIGKILL ${faultsInjected + 1} with ${taken()} of ${written} written files taken`);
    await e.crash();
  }
  await writing;
  await waitFor('the inbox empty', () => readdirSync(inbox).length === 0, { timeoutMs: 300_000, intervalMs: 200 });
  const outcome = await e.finish(messages);
  assert.equal(outcome.problems.slice(0, 20), [], 'every check-in stored once, every bad one dead-lettered once');
  assert.is(outcome.lost, 0);
  assert.is(outcome.duplicated, 0);
});

test('the SQS bridge on the in-process transport: SIGKILL twice while 2,400 messages flow, every one stored once', async () => {
  queueUrl = await createQueue(sqs, randomName('embedded-crash'));
  const e = await embedded({ SQS_QUEUE_URL: queueUrl, SQS_ENDPOINT: env.SQS_ENDPOINT! });
  await e.start();
  const sender = startSender(sqs, () => queueUrl, sqsMessages, 150);
  for (const at of SQS_KILL_AT) {
    await waitFor(`${at} messages sent`, () => sender.sent() >= at, { timeoutMs: 300_000, intervalMs: 20 });
    log(`SIGKILL ${faultsInjected + 1} with ${sender.sent()} messages sent`);
    await e.crash();
  }
  await sender.done;
  // Messages received before a kill and never deleted come back after the queue's 5 s visibility timeout.
  await waitFor('the queue drained', async () => (await queueDepth(sqs, queueUrl)) === 0, { timeoutMs: 300_000, intervalMs: 500 });
  const outcome = await e.finish(sqsMessages);
  assert.equal(outcome.problems.slice(0, 20), [], 'every check-in stored once, every bad one dead-lettered once');
  assert.is(outcome.lost, 0);
  assert.is(outcome.duplicated, 0);
});

test.run();
