// Silence judged against the pipeline's progress (docs/decisions.md#silence-judged-against-the-pipelines-progress),
// through the real pipeline: SQS (ElasticMQ) -> bridge -> Kafka stages -> Postgres in one `faultline start` child
// process, the alarm worker (the communication-lost scan) in a second one that stays up throughout.
// 1. The pipeline process is killed after a first round of check-ins; the devices check in again, on time, while
//    it is down (their check-ins wait in SQS); they pass their silence threshold by the wall clock; the pipeline
//    comes back and drains the queue. No communication-lost alarm for those devices (on the code before: one each).
// 2. Then the pipeline is idle and the devices truly silent: their alarms are still raised, late by at most the
//    lag bound (the stale fallback).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { COMMUNICATION_LOST } from '../../domain/alarm-kinds.js';
import { reportTally } from '../helpers/tally.js';
import { fixtureText } from '../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { resetPipelineTopics } from '../../support/kafka.js';
import { freePort, startFaultline, type FaultlineProcess } from '../../support/process.js';
import { importDemoData } from '../../support/reference-data.js';
import { createQueue, dropQueue, log, newSqsClient, pipelineProcess, randomName, sleep, waitFor, waitWhileAlive, type PipelineRig } from './rig.js';

// Ceiling 36 s: devices with too little history are judged by it alone (domain/checkin-clock.ts), so they pass
// their threshold within the outage. Lag bound 2 min: longer than the outage and the restart, so the judging
// instant stays where the pipeline stopped while it is down and drains.
const CEILING_S = 36;
const SETTINGS = { OFFLINE_AFTER_HOURS: String(CEILING_S / 3600), SILENCE_LAG_BOUND_MINUTES: '2' };
const DEVICES = 6;

const sqs = newSqsClient();
let queueUrl = '';
let db: TestDatabase;
let pipe: PipelineRig | null = null;
let alarms: FaultlineProcess | null = null;
let imeis: string[] = [];
let faultsInjected = 0;
let messagesSent = 0;

/** A check-in of `imei` dated `dateMs`, no fault. */
function checkIn(imei: string, dateMs: number): string {
  const m = JSON.parse(fixtureText('002-permanent-fault.json')) as { device_data: Record<string, unknown>; events: unknown[] };
  m.device_data.IMEINumber = imei;
  m.device_data.date = new Date(Math.floor(dateMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  m.device_data.Ongoing_fault = 0;
  m.events = [];
  return JSON.stringify(m);
}

async function sendRound(dateMs: number): Promise<void> {
  const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: imeis.map((imei, i) => ({ Id: String(i), MessageBody: checkIn(imei, dateMs) })) }));
  assert.is(out.Failed?.length ?? 0, 0, 'the queue took the round');
  messagesSent += imeis.length;
}

/** How many of our devices' clocks stand at `dateMs` or later (their check-in of then is stored). */
async function clocksAt(dateMs: number): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>('select count(*) as n from checkin_clock where "IMEINumber" = any($1) and last_date >= $2', [imeis, new Date(Math.floor(dateMs / 1000) * 1000)]);
  return Number(rows[0]!.n);
}

const commLost = async () => (await db.pool.query<{ imei: string; last: string }>(
  `select "IMEINumber" as imei, detail->>'lastCheckIn' as last from alarms where kind = $1 and "IMEINumber" = any($2) order by 1`, [COMMUNICATION_LOST, imeis])).rows;

test.before(async () => {
  await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
  db = await createTestDatabase('backlogsilence');
  await importDemoData(db.pool);
  imeis = (await db.pool.query<{ imei: string }>(`select "IMEINumber" as imei from device_information where deleted_at is null order by 1 limit ${DEVICES}`)).rows.map((r) => r.imei);
  queueUrl = await createQueue(sqs, randomName('backlog-silence'));
});

test.after(async () => {
  await pipe?.stop().catch(() => {});
  await alarms?.stop('SIGTERM').catch(() => {});
  const stored = db ? Number((await db.pool.query<{ n: string }>('select count(*) as n from device_records where "IMEINumber" = any($1)', [imeis]).catch(() => ({ rows: [{ n: '0' }] }))).rows[0]!.n) : 0;
  reportTally('resilience/backlog-silence', { faultsInjected, messagesSent, messagesStored: stored, lost: Math.max(0, messagesSent - stored) });
  await dropQueue(sqs, queueUrl);
  sqs.destroy();
  await db?.drop().catch(() => {});
});

test('check-ins waiting in SQS while the pipeline is down: no communication-lost alarm when it drains', async () => {
  assert.is(imeis.length, DEVICES);
  pipe = await pipelineProcess(db, queueUrl, SETTINGS);
  const p = pipe;
  alarms = startFaultline(['start', '--only', 'alarms'], { ...p.env, PORT: String(await freePort()) });
  await waitFor('the alarm worker to start', () => alarms!.output().includes('faultline is running') || alarms!.child.exitCode !== null, { timeoutMs: 60_000 });
  assert.is(alarms.child.exitCode, null, alarms.output());

  const t0 = Date.now();
  await sendRound(t0);
  await waitWhileAlive(p, 'the first round stored', async () => (await clocksAt(t0)) === DEVICES, { timeoutMs: 60_000, intervalMs: 200 });

  log('killing the pipeline process');
  await p.kill();
  faultsInjected++;
  // The devices check in again on time (before their threshold); the check-ins wait in the queue.
  const t1 = t0 + 20_000;
  await sleep(Math.max(0, t1 - Date.now()));
  await sendRound(t1);
  // Let the wall clock pass every device's threshold, with many scans of the alarm worker after it.
  await sleep(Math.max(0, t0 + (CEILING_S + 15) * 1000 - Date.now()));
  assert.is(alarms.child.exitCode, null, 'the alarm worker stayed up');

  log('restarting the pipeline');
  await p.start();
  await waitWhileAlive(p, 'the backlog drained', async () => (await clocksAt(t1)) === DEVICES, { timeoutMs: 120_000, intervalMs: 200 });
  await sleep(3_000); // a few more scans after the drain: a spurious alarm would show now
  const raised = await commLost();
  log(`communication-lost alarms for devices whose check-ins waited in the backlog: ${raised.length}`);
  assert.equal(raised, [], 'no device whose check-in waited in the backlog is called silent');
});

test('the pipeline idle and the devices truly silent: still raised, late by at most the lag bound', async () => {
  assert.ok(pipe, 'the first case ran');
  // Their last check-ins (t1) are now the newest stored: the judging instant falls back to now - bound.
  await waitFor('a communication-lost alarm for every silent device', async () => (await commLost()).length === DEVICES, { timeoutMs: 8 * 60_000, intervalMs: 1_000 });
  const raised = await commLost();
  const stored = (await db.pool.query<{ last: Date }>('select last_date as last from checkin_clock where "IMEINumber" = any($1)', [imeis])).rows;
  assert.equal(raised.map((r) => r.imei), [...imeis].sort(), 'one alarm per silent device');
  assert.ok(raised.every((r) => stored.some((s) => s.last.getTime() === Date.parse(r.last))), 'each names its device\'s last stored check-in');
});

test.run();
