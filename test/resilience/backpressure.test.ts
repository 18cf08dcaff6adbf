// Issue #7 part 2, back-pressure: while messages flow, a transaction holds EXCLUSIVE locks on every table
// persist writes (device_records, event_records, dm1_event_records, device_currents) for 20 s, so each
// persist write waits. The chained pipeline (one consumer of fi.raw.v1 runs every stage) stops at its
// persist step, so the bridge's output waits in Kafka. What must hold:
// - ingestion into Postgres pauses (no record is stored while the lock is held; the lock is real);
// - the backlog waits in Kafka, not in the pipeline process: the chain's in-flight records (the
//   faultline_stage_in_flight_records gauge) stay a small fraction of its consumer lag, and the process'
//   RSS and heap grow by less than a fixed bound;
// - afterwards it catches up: every message stored exactly once, lag zero.
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reportTally } from '../helpers/tally.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { resetPipelineTopics } from '../../support/kafka.js';
import { CHAIN } from '../../config/pipeline-split.js';
import { segmentLabel } from '../../stages/shape.js';
import {
  buildMessages, compareWithSent, consumerLag, createQueue, dropQueue, log, metric, newSqsClient, pipelineProcess, queueDepth,
  randomName, rssBytes, sleep, startSender, waitFor, waitWhileAlive, type Outcome, type PipelineRig,
} from './rig.js';

const TOTAL = 8_000;
/** The one segment of the chained default, as its metrics name it. */
const CHAINED = segmentLabel(CHAIN);
const BAD = 8;
const RATE = 300;
const LOCK_MS = 20_000;
/** RSS and heap may grow by at most this much while the lock holds back thousands of records. */
const MEMORY_BOUND = 200 * 1024 * 1024;

const sqs = newSqsClient();
let queueUrl = '';
let db: TestDatabase;
let pipe: PipelineRig | null = null;
let outcome: Outcome | null = null;
let faultsInjected = 0;
const messages = buildMessages(TOTAL, BAD, 12);
const goodCount = messages.filter((m) => m.good).length;

test.before(async () => {
  await resetPipelineTopics(['dnp3.north', 'dnp3.south']);
  db = await createTestDatabase('backpressure');
  queueUrl = await createQueue(sqs, randomName('backpressure'));
});

test.after(async () => {
  if (pipe && process.env.RESILIENCE_LOG) writeFileSync(process.env.RESILIENCE_LOG, pipe.output());
  await pipe?.stop().catch(() => {});
  if (!outcome && db) outcome = await compareWithSent(db, messages).catch(() => null);
  reportTally('resilience/backpressure', outcome && {
    faultsInjected, messagesSent: TOTAL,
    messagesStored: outcome.messagesStored, duplicated: outcome.duplicated, lost: outcome.lost,
  });
  await dropQueue(sqs, queueUrl);
  sqs.destroy();
  await db?.drop().catch(() => {});
});

const stored = async () => Number((await db.pool.query('select count(*) from device_records')).rows[0].count);

interface Sample { at: number; rss: number; heap: number; inFlight: number; stored: number }

test(`Postgres locked for ${LOCK_MS / 1000} s: persist pauses, memory stays bounded, then every message is stored once`, async () => {
  pipe = await pipelineProcess(db, queueUrl);
  const p = pipe;
  const sender = startSender(sqs, () => queueUrl, messages, RATE);
  const sample = async (): Promise<Sample> => ({
    at: Date.now(), rss: rssBytes(p.proc.child.pid!), heap: (await metric(p.port, 'faultline_nodejs_heap_size_used_bytes')) ?? 0,
    inFlight: (await metric(p.port, `faultline_stage_in_flight_records{stage="${CHAINED}"}`)) ?? 0, stored: await stored(),
  });
  const locker = new pg.Client({ connectionString: db.url });
  let during: Sample[] = [];
  let lagAtEnd: Record<string, number>;
  let before: Sample;
  try {
    await waitWhileAlive(p, '1,500 records stored before the lock', async () => (await stored()) >= 1500, { timeoutMs: 120_000, intervalMs: 200 });
    before = await sample();
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table device_records, event_records, dm1_event_records, device_currents in exclusive mode');
    faultsInjected++;
    // Writes that had passed the lock check before it was granted may still commit; start counting after.
    await sleep(1500);
    const lockedAt = await sample();
    log(`locked at ${lockedAt.stored} stored (sent ${sender.sent()}); rss ${(lockedAt.rss / 2 ** 20).toFixed(0)} MB`);
    const until = Date.now() + LOCK_MS - 1500;
    while (Date.now() < until) {
      during.push(await sample());
      await sleep(500);
    }
    lagAtEnd = await consumerLag();
    during = [lockedAt, ...during];
  } finally {
    await locker.query('commit').catch(() => {});
    await locker.end().catch(() => {});
  }
  const last = during[during.length - 1]!;
  const maxRss = Math.max(...during.map((s) => s.rss));
  const maxHeap = Math.max(...during.map((s) => s.heap));
  const maxInFlight = Math.max(...during.map((s) => s.inFlight));
  log(`during the lock: stored ${during[0]!.stored} -> ${last.stored}; sent ${sender.sent()}; chain's lag ${lagAtEnd.enrich}; ` +
    `chain in flight max ${maxInFlight}; rss ${(before!.rss / 2 ** 20).toFixed(0)} -> max ${(maxRss / 2 ** 20).toFixed(0)} MB; ` +
    `heap ${(before!.heap / 2 ** 20).toFixed(0)} -> max ${(maxHeap / 2 ** 20).toFixed(0)} MB`);

  await sender.done;
  await waitWhileAlive(p, `all ${goodCount} stored after the lock`, async () => (await stored()) >= goodCount, { timeoutMs: 180_000, intervalMs: 500 });
  await waitFor('the queue to be empty', async () => (await queueDepth(sqs, queueUrl)) === 0, { timeoutMs: 60_000, intervalMs: 250 });
  let lag: Record<string, number> = {};
  await waitFor('zero lag', async () => Object.values((lag = await consumerLag())).every((n) => n === 0), { timeoutMs: 60_000, intervalMs: 500 })
    .catch((err: Error) => { throw new Error(`${err.message}: ${JSON.stringify(lag)}`); });
  await sleep(2000);
  outcome = await compareWithSent(db, messages);
  log(`sent ${outcome.messagesSent}, accounted for ${outcome.messagesStored}, duplicated ${outcome.duplicated}, lost ${outcome.lost}`);

  // The lock was real: nothing was stored while it held.
  assert.is(last.stored, during[0]!.stored, 'no record stored while the tables were locked');
  // Load was offered during the stall: thousands of records waited for persist ...
  assert.ok((lagAtEnd.enrich ?? 0) >= 1000, `records piled up before the chain (lag ${lagAtEnd.enrich})`);
  // ... in Kafka, not in the process.
  assert.ok(maxInFlight <= (lagAtEnd.enrich ?? 0) / 2, `the chain held at most ${maxInFlight} records in memory while ${lagAtEnd.enrich} waited`);
  assert.ok(maxRss - before!.rss < MEMORY_BOUND, `RSS grew by ${((maxRss - before!.rss) / 2 ** 20).toFixed(0)} MB during the lock`);
  assert.ok(maxHeap - before!.heap < MEMORY_BOUND, `heap grew by ${((maxHeap - before!.heap) / 2 ** 20).toFixed(0)} MB during the lock`);

  assert.equal(outcome.problems, [], 'the tables hold exactly what was sent');
  assert.is(outcome.lost, 0);
  assert.is(outcome.duplicated, 0);
  assert.is(outcome.messagesStored, TOTAL);
});

test.run();
