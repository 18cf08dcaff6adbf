// Issue 41, effects exactly once across a crash: the process is killed (SIGKILL, through a failpoint armed
// `exit`: config/failpoints.ts) at each seam between two durable writes on the path from SQS to the OMS, the
// alarms and the DNP3 feed, then started again unarmed; the end state must equal a run without a crash.
//
// Each run: a fresh database and Kafka namespace, 30 devices of one organisation with a DNP3 topic and a
// MultiSpeak integration whose OMS is the zeep server of test/multispeak (a real SOAP receiver), 300 check-ins
// that raise and clear faults, through `faultline start --only bridge,<stages>,api,delivery` on the real
// Kafka, registry, SQS (ElasticMQ) and Postgres. Compared with the run without a crash: the same alarms (one
// episode per raise) and alarm changes, one outbox row per status change (each delivered to the OMS), every
// check-in and event in the DNP3 feed, every record stored once, nothing left owed. Every seam of the path in
// SEAMS must have a case here (a type error and a test, so a seam added later without one fails).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kafka, logLevel } from 'kafkajs';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { SEAMS, type Seam } from '../../config/failpoints.js';
import { importReferenceData } from '../../reference-data/index.js';
import { createFleet } from '../../simulator/index.js';
import { kafkaNames } from '../../stages/runtime/transport/names.js';
import { TEST_KEYS } from '../../support/alarm-setup.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { brokers } from '../../support/kafka.js';
import { testKeyring } from '../../support/reference-data.js';
import { reportTally } from '../helpers/tally.js';
import { ensurePython } from '../multispeak/python.js';
import { startOms, type Oms } from '../integration/multispeak/oms.js';
import {
  consumerLag, createQueue, dropQueue, log, newSqsClient, pipelineProcess, queueDepth, randomName, waitFor, waitWhileAlive,
  type Outgoing, type PipelineRig,
} from './rig.js';

/**
 * The seams of the path (start-up seams are test/cli/start-signals'; the alarm router's,
 * test/integration/alarms/chatter-crash's: this suite's organisation routes no alarm messages; the fleet
 * worker's, test/integration/fleet/crash's; a partition cut's, test/integration/storage/partition-cut's).
 */
type PathSeam = Exclude<Seam, `start.${string}` | `alarms.${string}` | `fleet.${string}` | `storage.${string}`>;
const onPath = (s: string) => !s.startsWith('start.') && !s.startsWith('alarms.') && !s.startsWith('fleet.') && !s.startsWith('storage.');

/** One case per seam of the path: what a crash there would lose or repeat without the design. */
const CASES: Record<PathSeam, string> = {
  'bridge.after-publish': 'queue messages published but not deleted: SQS delivers them again, dedup drops the copies',
  'persist.after-commit': 'records stored, notify owed: the redelivered batch is dropped by dedup, pending_effects carries the debt',
  'notify.after-effects': 'notify\'s rows committed, its DNP3 records not produced: the applied rows stay owed their feed, produced once after the restart',
  'notify.after-feed': 'DNP3 records produced, their clearing not committed: produced again after the restart (the feed at least once), no row written twice',
  'chain.before-commit': 'every write done, offsets not committed: the batch comes again and changes nothing',
};

const DEVICES = 30;
const CHECKINS = 300;
const ORG = 'crash';
const DNP3_TOPIC = 'dnp3.crash';
/** The round of check-ins the armed process meets (the ones before it give each device a history). */
const ARMED_ROUND = 4;

const fleet = createFleet({ devices: DEVICES, seed: 41, eventChance: 0.5, intervalMs: 60_000, firstEventId: 5000, imeiPrefix: '35841' });
const messages: Outgoing[] = Array.from({ length: CHECKINS }, () => {
  const m = fleet.next();
  return { body: JSON.stringify(m.message), good: m, bad: null };
});

const sqs = newSqsClient();
const tally = { faultsInjected: 0, messagesSent: 0, messagesStored: 0, duplicated: 0, lost: 0 };
let counted = false;

interface EndState {
  records: number;
  /** Rows found twice under a natural key (records, events, currents): the unique keys make 0 the only answer. */
  duplicateRows: number;
  alarms: string[];
  alarmChanges: string[];
  outbox: string[];
  undelivered: number;
  omsMessages: number;
  feedRecords: string[];
  feedEvents: string[];
  feedRepeats: number;
  owed: number;
}

async function readFeed(namespace: string, expected: number): Promise<string[][]> {
  const kafka = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: randomName('crash-feed') });
  const seen: string[][] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: kafkaNames(namespace).topic(DNP3_TOPIC), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = JSON.parse(message.value!.toString()) as { IMEINumber: string; date: string; events: { EventID: number }[] };
        seen.push([`${v.IMEINumber}@${v.date}`, ...v.events.map((e) => `${v.IMEINumber}#${e.EventID}`)]);
      },
    });
    // Missing records are the finding, not a reason to stop: after a generous wait, what arrived is compared.
    await waitFor(`${expected} DNP3 feed records`, () => new Set(seen.map((s) => s[0])).size >= expected, { timeoutMs: 30_000, intervalMs: 250 })
      .catch((err: Error) => log(`${err.message}: ${new Set(seen.map((s) => s[0])).size} arrived`));
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * One run of the 300 check-ins; `seam`: armed `exit` for the first start, then restarted unarmed. `split`: a
 * split deployment (PIPELINE_SPLIT=notify), notify and the delivery worker in a second process that is never
 * restarted, the seam armed in the first, at the last round (so no later check-in of a device wakes notify).
 */
async function run(seam: PathSeam | null, { split = false } = {}): Promise<EndState> {
  const label = `${seam ?? 'no crash'}${split ? ' (split)' : ''}`;
  const armedRound = split ? CHECKINS / DEVICES - 1 : ARMED_ROUND;
  const namespace = randomName('crash').replace(/[^a-z0-9]/g, '');
  const db: TestDatabase = await createTestDatabase('crash');
  const queueUrl = await createQueue(sqs, randomName('crash'));
  let oms: Oms | null = null;
  let rig: PipelineRig | null = null;
  let notifyRig: PipelineRig | null = null;
  try {
    oms = await startOms();
    await importReferenceData(db.pool, {
      organizations: [{ OrganizationID: ORG, name: 'Crash Utility', MaskFaultDetails: false, timezone: 'UTC' }],
      powerLines: [], groups: [], users: [],
      devices: fleet.imeis.map((imei, i) => ({ IMEINumber: imei, OrganizationID: ORG, Real_Name: `Pole ${i}`, Lat: 41 + i / 100, Long: -87, dnp3QueueAddress: DNP3_TOPIC })),
      integrations: [{ id: 'crash-oms', OrganizationID: ORG, kind: 'multispeak', channel: 'C', endpoint: oms.url, operation: 'ODEventNotification', version: '4.1', userId: 'u', password: 'p-secret-1' }],
    }, { keyring: testKeyring() });

    const env: Record<string, string> = { KAFKA_NAMESPACE: namespace, FAULTLINE_SECRET_KEYS: TEST_KEYS, SQS_POLLERS: '1' };
    if (split) {
      // The sweep's bound short, so the test need not wait a minute for it (60 s in production).
      Object.assign(env, { PIPELINE_SPLIT: 'notify', NOTIFY_SWEEP_AFTER_SECONDS: '3' });
      notifyRig = await pipelineProcess(db, queueUrl, env, { only: ['notify', 'api', 'delivery'] });
      rig = await pipelineProcess(db, queueUrl, env, { only: ['bridge', 'enrich', 'dedup', 'fault-compute', 'persist', 'rejected', 'api'] });
    } else {
      rig = await pipelineProcess(db, queueUrl, env, { components: ['delivery'] });
    }
    const p = rig;
    const others = notifyRig;
    const stored = () => count(db, 'select count(*) from device_records');
    // Round by round (one check-in of every device, then the next once it is stored): SQS does not keep order,
    // and a device's check-ins arriving in another order would rightly give other alarms and status changes.
    // A round that is armed waits in the queue a moment, so the first receive (the batch the seam kills) holds ten.
    const send = async (round: number) => {
      const batch = messages.slice(round * DEVICES, (round + 1) * DEVICES);
      for (let i = 0; i < batch.length; i += 10) {
        await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.slice(i, i + 10).map((m, j) => ({ Id: String(j), MessageBody: m.body, DelaySeconds: round === armedRound ? 2 : 0 })) }));
      }
    };
    for (let round = 0; round < CHECKINS / DEVICES; round++) {
      if (seam && round === armedRound) {
        // Devices have a history by now, so the batch the crash hits clears faults and raises others.
        // Every batch so far committed, so the armed process meets round 4 first, not a redelivered batch.
        await waitFor(`${label}: zero consumer lag before the armed start`, async () => Object.values(await consumerLag(namespace)).every((n) => n === 0), { timeoutMs: 60_000, intervalMs: 250 });
        const hung = setTimeout(() => p.proc.child.kill('SIGKILL'), 60_000);
        await p.proc.stop('SIGTERM');
        clearTimeout(hung);
        p.env.FAULTLINE_FAILPOINTS = `${seam}=exit`;
        await p.start();
        await send(round);
        // The limit's timer is cleared: left pending, it kept the suite's process alive up to two minutes after its summary.
        let limit: NodeJS.Timeout | undefined;
        const exit = await Promise.race([p.proc.exited.then(() => 'exited'), new Promise((r) => { limit = setTimeout(() => r('alive'), 120_000); })]);
        clearTimeout(limit);
        assert.is(exit, 'exited', `the process died at ${seam}\n${p.output().slice(-2000)}`);
        assert.match(p.output(), `failpoint ${seam}: exit`, `it was the failpoint ${seam} that killed it`);
        assert.is(p.proc.child.signalCode, 'SIGKILL');
        tally.faultsInjected++;
        const [atKill, owed] = [await stored(), await count(db, 'select count(*) from pending_effects')];
        log(`${label}: killed at the seam in round ${round} (${atKill} records stored, ${owed} owed their effects); restarting unarmed`);
        // The crash hit the armed round's own batch: past the bridge, its records are stored; past persist's
        // commit and before notify's, their effects are owed.
        if (seam !== 'bridge.after-publish') assert.ok(atKill > round * DEVICES, `${seam}: the batch the crash hit was stored (${atKill})`);
        if (seam === 'persist.after-commit' || seam.startsWith('notify.')) assert.ok(owed > 0, `${seam}: the crash left effects owed`);
        // An outbox row the dead process had claimed waits out its lease (5 min) before another worker sends it;
        // the test moves that clock, as faults.test's dueNow does, rather than sleep through it.
        await db.pool.query('update outbox set next_attempt_at = now() where delivered_at is null and dead_at is null and next_attempt_at > now()');
        delete p.env.FAULTLINE_FAILPOINTS;
        await p.start();
      } else {
        await send(round);
      }
      await waitWhileAlive(p, `${label}: round ${round} stored`, async () => (await stored()) >= (round + 1) * DEVICES, { timeoutMs: 120_000, intervalMs: 200 });
    }
    await waitWhileAlive(p, `${label}: nothing owed, every outbox row delivered, the queue empty`, async () => {
      others?.assertAlive();
      return (await count(db, 'select count(*) from pending_effects')) === 0
      && (await count(db, 'select count(*) from outbox where delivered_at is null')) === 0
      && (await queueDepth(sqs, queueUrl)) === 0;
    }, { timeoutMs: 240_000, intervalMs: 500 });
    await waitFor(`${label}: zero consumer lag`, async () => Object.values(await consumerLag(namespace)).every((n) => n === 0), { timeoutMs: 60_000, intervalMs: 500 });

    const rows = async (sql: string) => (await db.pool.query<{ k: string }>(sql)).rows.map((r) => r.k);
    const feed = await readFeed(namespace, CHECKINS);
    const feedRecords = feed.map((f) => f[0]!);
    const received = await oms.received();
    const state: EndState = {
      records: await count(db, 'select count(*) from device_records'),
      duplicateRows: await count(db, `select
          (select count(*) - count(distinct ("IMEINumber", "date")) from device_records)
        + (select count(*) - count(distinct ("IMEINumber", "EventID", "ReportedEventTimestamp")) from event_records)
        + (select count(*) - count(distinct ("IMEINumber", "PacketTimestamp")) from device_currents) as count`),
      alarms: await rows(`select "IMEINumber" || ' ' || kind || ' ' || episode as k from alarms order by 1`),
      alarmChanges: await rows(`select a."IMEINumber" || ' ' || a.kind || ' ' || a.episode || ' ' || c.change as k from alarm_changes c join alarms a on a.id = c.alarm_id order by 1`),
      outbox: await rows(`select kind || ' ' || dedup_key as k from outbox order by 1`),
      undelivered: await count(db, 'select count(*) from outbox where delivered_at is null'),
      omsMessages: received.length,
      feedRecords: [...new Set(feedRecords)].sort(),
      feedEvents: [...new Set(feed.flatMap((f) => f.slice(1)))].sort(),
      feedRepeats: feedRecords.length - new Set(feedRecords).size,
      owed: await count(db, 'select count(*) from pending_effects'),
    };
    log(`${label}: ${state.records} records, ${state.alarms.length} alarms, ${state.alarmChanges.length} alarm changes, ${state.outbox.length} outbox rows (${state.omsMessages} SOAP requests answered), ${state.feedRecords.length} DNP3 records (${state.feedRepeats} repeated), ${state.feedEvents.length} DNP3 events`);
    return state;
  } finally {
    await rig?.stop().catch(() => {});
    await notifyRig?.stop().catch(() => {});
    await oms?.stop().catch(() => {});
    await dropQueue(sqs, queueUrl);
    await db.drop().catch(() => {});
  }
}

const count = async (db: TestDatabase, sql: string) => Number((await db.pool.query<{ count: string }>(sql)).rows[0]!.count);

/** What the crash run lost (in the run without a crash, not in it) and repeated (more than once, or not in it). */
function differences(base: EndState, got: EndState): { lost: number; duplicated: number; problems: string[] } {
  const problems: string[] = [];
  let lost = 0;
  let duplicated = got.duplicateRows;
  if (got.duplicateRows) problems.push(`${got.duplicateRows} rows stored twice`);
  if (got.records !== base.records) { lost += Math.max(0, base.records - got.records); problems.push(`${got.records} records, not ${base.records}`); }
  for (const [what, a, b] of [['alarm', base.alarms, got.alarms], ['alarm change', base.alarmChanges, got.alarmChanges], ['outbox row', base.outbox, got.outbox], ['DNP3 record', base.feedRecords, got.feedRecords], ['DNP3 event', base.feedEvents, got.feedEvents]] as const) {
    const have = new Map<string, number>();
    for (const k of b) have.set(k, (have.get(k) ?? 0) + 1);
    const missing = a.filter((k) => !have.has(k));
    const extra = [...have].filter(([k, n]) => n > 1 || !a.includes(k));
    lost += missing.length;
    duplicated += extra.length;
    if (missing.length) problems.push(`${missing.length} ${what}s missing, e.g. ${missing.slice(0, 3).join('; ')}`);
    if (extra.length) problems.push(`${extra.length} ${what}s repeated or unexpected, e.g. ${extra.slice(0, 3).map(([k, n]) => `${k} x${n}`).join('; ')}`);
  }
  if (got.undelivered) { lost += got.undelivered; problems.push(`${got.undelivered} outbox rows not delivered to the OMS`); }
  if (got.owed) problems.push(`${got.owed} records still owed their effects`);
  return { lost, duplicated, problems };
}

let baseline: EndState | null = null;

test.before(async () => {
  await ensurePython();
});

test.after(async () => {
  sqs.destroy();
  // Counted only what ran: a suite that failed before its first comparison says so rather than inventing losses.
  if (counted) reportTally('resilience/crash-points', tally);
  else log('resilience/crash-points: no crash run finished, nothing counted');
});

test('every seam of the path in config/failpoints.ts SEAMS has a case here', () => {
  const path = Object.keys(SEAMS).filter(onPath);
  assert.equal(path.sort(), Object.keys(CASES).sort(), 'a seam between two durable writes was added (or removed) without its crash case');
  log(`crash cases: ${Object.entries(CASES).map(([s, why]) => `\n  ${s}: ${why}`).join('')}`);
});

test('the run without a crash: faults raise alarms and status changes, every check-in reaches the feed', async () => {
  baseline = await run(null);
  assert.is(baseline.records, CHECKINS);
  assert.ok(baseline.alarms.length >= 10, `the check-ins raise alarms (${baseline.alarms.length})`);
  assert.ok(baseline.outbox.filter((k) => k.startsWith('status')).length >= 20, 'the check-ins change status');
  assert.is(baseline.feedRecords.length, CHECKINS, 'every check-in in the DNP3 feed');
  assert.is(baseline.undelivered, 0);
  assert.is(baseline.owed, 0);
  assert.is(baseline.duplicateRows, 0);
});

// CRASH_SEAMS=persist.after-commit,... runs a subset while debugging; CI runs every case.
/** How a run after a crash differs from the run without one, counted in the suite's TALLY. */
function countAgainstBaseline(got: Awaited<ReturnType<typeof run>>): ReturnType<typeof differences> {
  const d = differences(baseline!, got);
  tally.messagesSent += CHECKINS;
  tally.messagesStored += got.records - got.duplicateRows;
  tally.lost += d.lost;
  tally.duplicated += d.duplicated;
  counted = true;
  return d;
}

const only = process.env.CRASH_SEAMS?.split(',');
for (const seam of (Object.keys(CASES) as PathSeam[]).filter((s) => !only || only.includes(s))) {
  test(`killed at ${seam}, restarted: the end state equals the run without a crash`, async () => {
    assert.ok(baseline, 'the run without a crash finished');
    const got = await run(seam);
    const d = countAgainstBaseline(got);
    log(`${seam}: lost ${d.lost}, duplicated ${d.duplicated}; DNP3 feed records sent again ${got.feedRepeats} (at least once)${d.problems.length ? `\n  ${d.problems.join('\n  ')}` : ''}`);
    assert.equal(d.problems, [], `${seam}: the same end state as without a crash`);
  });
}

// The seam persist.after-commit again, in a split deployment: the upstream process dies after persist's commit
// and before its produce to fi.persisted.v1; the redelivered check-ins are dropped by dedup, notify's process
// is never restarted and its group never moves, and no device checks in again. Only notify's sweep
// (NOTIFY_SWEEP_AFTER_SECONDS) comes to what that batch owes (docs/decisions.md#effects-exactly-once-sweep-feed-chunks).
if (!only || only.includes('split')) {
  test('split shape: the upstream process killed at persist.after-commit in the last round, notify\'s process running on: the end state equals the run without a crash', async () => {
    assert.ok(baseline, 'the run without a crash finished');
    const got = await run('persist.after-commit', { split: true });
    const d = countAgainstBaseline(got);
    log(`persist.after-commit (split): lost ${d.lost}, duplicated ${d.duplicated}${d.problems.length ? `\n  ${d.problems.join('\n  ')}` : ''}`);
    assert.equal(d.problems, [], 'the same end state as without a crash');
  });
}

test.run();
