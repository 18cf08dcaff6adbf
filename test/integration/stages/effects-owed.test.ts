// Issue 41: what persist owes notify (pending_effects, docs/decisions.md#effects-exactly-once-across-a-crash) is
// applied once, and a device's records in the order they were stored, even when a restart's recovery and the
// live stage (two processes) reach the same device at the same moment; a row nothing wakes notify for is swept;
// a notify transaction that fails produces no DNP3 record; a backlog goes in chunks
// (docs/decisions.md#effects-exactly-once-sweep-feed-chunks). Real Postgres and the real Kafka broker, which
// carries the DNP3 feed (read back from it to count each record).
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadSettings } from '../../../config/settings.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { notifyStage } from '../../../stages/notify/index.js';
import { findDevices } from '../../../stages/enrich/devices.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { runStage } from '../../../stages/runtime/runner.js';
import { kafkaTransport } from '../../../stages/runtime/transport/kafka.js';
import { kafkaNames } from '../../../stages/runtime/transport/names.js';
import type { Subscription, Transport } from '../../../stages/runtime/transport/transport.js';
import { TOPICS } from '../../../schemas/avro/topics.js';
import type { ComputedCheckIn, PersistedCheckIn } from '../../../schemas/avro/values.js';
import { checkInOf, computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { brokers } from '../../../support/kafka.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { outsideConsumer } from '../../../support/pipeline.js';
import { reportTally } from '../../helpers/tally.js';

const test = suite('notify: what persist owes, once and in order (real Postgres)');
let db: TestDatabase;
let transport: Transport;
const IMEI = '861000000000100';
const names = kafkaNames(`owed-${randomUUID().slice(0, 8)}`);
const kafka = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING });
/**
 * The stage's bounds as the tests set them (Settings.notify in production): no sweep comes to a row within a
 * test unless the test asks for one (SWEEP), so only the path under test applies it.
 */
const BOUNDS = { sweepAfterMs: 3_600_000, chunkRecords: 50 };
const SWEEP = { ...BOUNDS, sweepAfterMs: 1_000 };
const tally = { faultsInjected: 0, messagesSent: 0, messagesStored: 0, duplicated: 0, lost: 0 };
let counted = false;

test.before(async () => {
  db = await createTestDatabase('owed');
  await importDemoData(db.pool);
  transport = kafkaTransport({ brokers: brokers(), codec: localAvroCodec(), names, partitions: 1, sessionTimeoutMs: 10_000 });
});
test.after(async () => {
  await transport?.close();
  await db?.drop();
  const admin = kafka.admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((t) => t.startsWith(`${names.topic('')}`));
  if (mine.length) await admin.deleteTopics({ topics: mine }).catch(() => {});
  await admin.disconnect();
  if (counted) reportTally('integration/effects-owed', tally);
});

/** Every DNP3 feed record of `imei` on `topic` (logical name) up to the end of the log now, as `IMEI@date`. */
async function feedOf(topic: string, imei: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(names.topic(topic)).finally(() => admin.disconnect());
  const want = new Map(ends.filter((e) => Number(e.high) > 0).map((e) => [e.partition, Number(e.high) - 1]));
  const seen: string[] = [];
  if (want.size === 0) return seen;
  const consumer = kafka.consumer({ groupId: `owed-feed-${randomUUID()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: names.topic(topic), fromBeginning: true });
    const reached = new Set<number>();
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const v = JSON.parse(message.value!.toString()) as { IMEINumber: string; date: string };
        if (v.IMEINumber === imei) seen.push(`${v.IMEINumber}@${v.date}`);
        if (Number(message.offset) >= want.get(partition)!) reached.add(partition);
      },
    });
    await waitFor(`the ${topic} feed read to its end`, () => reached.size === want.size, { timeoutMs: 60_000, intervalMs: 100 });
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

/** Counts what `expected` (IMEI@date, each once) lost and repeated against what the feed holds. */
function countFeed(expected: string[], got: string[]): { lost: number; duplicated: number } {
  tally.messagesSent += expected.length;
  tally.messagesStored += new Set(got).size;
  const lost = expected.filter((k) => !got.includes(k)).length;
  const duplicated = got.length - new Set(got).size;
  tally.lost += lost;
  tally.duplicated += duplicated;
  counted = true;
  return { lost, duplicated };
}

const demoFault = async (imei: string, over: Partial<ComputedCheckIn> = {}) => {
  const device = (await findDevices(db.pool, [imei])).get(imei)!;
  assert.ok(device, `${imei} is a demo device`);
  const c = checkInOf('002-permanent-fault.json');
  return computed({ ...c, device_data: { ...c.device_data, IMEINumber: imei } }, { device, ...over });
};

const rows = async (sql: string) => (await db.pool.query<{ k: string }>(sql)).rows.map((r) => r.k);
const asInput = (value: PersistedCheckIn) => ({ topic: 'fi.persisted.v1', partition: 0, messages: [{ topic: 'fi.persisted.v1', partition: 0, offset: '0', key: value.checkIn.device_data.IMEINumber, value, timestamp: Date.now() }] });

test('NOTIFY_SWEEP_AFTER_SECONDS and NOTIFY_CHUNK_RECORDS: 60 s and 200 by default, anything out of range refused', () => {
  assert.equal(loadSettings({}).notify, { sweepAfterMs: 60_000, chunkRecords: 200 });
  assert.equal(loadSettings({ NOTIFY_SWEEP_AFTER_SECONDS: '2.5', NOTIFY_CHUNK_RECORDS: '10' }).notify, { sweepAfterMs: 2_500, chunkRecords: 10 });
  assert.throws(() => loadSettings({ NOTIFY_SWEEP_AFTER_SECONDS: '0' }), /NOTIFY_SWEEP_AFTER_SECONDS/);
  assert.throws(() => loadSettings({ NOTIFY_CHUNK_RECORDS: '2.5' }), /NOTIFY_CHUNK_RECORDS/);
});

test('a fault stored before a crash and its clearing stored after: recovery and the live batch at once apply each once, the fault first', async () => {
  const device = (await findDevices(db.pool, [IMEI])).get(IMEI)!;
  assert.ok(device, 'the demo device is known');
  const fault = computed(checkInOf('002-permanent-fault.json'), { device });
  const d = fault.checkIn.device_data;
  const clearDate = new Date(Date.parse(d.date) + 15 * 60_000).toISOString();
  const clear = computed({ ...fault.checkIn, events: [], device_data: { ...d, date: clearDate, Ongoing_fault: 0 } }, { device, previousActualOngoingFault: 4 });

  // persist stored the fault and the process died before notify; after the restart the clearing is stored too.
  const [faultOut] = await persistBatch(db.pool, [fault]);
  const [clearOut] = await persistBatch(db.pool, [clear]);
  assert.equal(await rows('select "RecordID"::text as k from pending_effects order by 1'), [String(faultOut!.DeviceRecordID), String(clearOut!.DeviceRecordID)], 'both records are owed');

  // The restarted process's recovery and another member's live batch of the clearing, at the same moment.
  const recovering = notifyStage({ pool: db.pool, transport, ...BOUNDS });
  const live = notifyStage({ pool: db.pool, transport, ...BOUNDS });
  await Promise.all([recovering.onAssign!([0]), live.handle(asInput(clearOut!), outsideConsumer)]);

  const episode = `${IMEI} permanent ${new Date(d.date).toISOString()}`;
  assert.equal(await rows(`select "IMEINumber" || ' ' || kind || ' ' || episode as k from alarms order by id`), [episode], 'one permanent-fault alarm, for the fault');
  assert.equal(await rows('select change as k from alarm_changes order by id'), ['raised', 'cleared'], 'raised, then cleared by the newer record: not the other way round');
  const status = await rows(`select dedup_key as k from outbox where kind = 'status' order by id`);
  assert.ok(status.length > 0 && status.length % 2 === 0, `status rows for both records (${status.join(', ')})`);
  for (let i = 0; i < status.length; i += 2) assert.equal(status.slice(i, i + 2).map((k) => k.split(':').slice(2).join(':')), [new Date(d.date).toISOString(), clearDate], 'the fault before its clearing');
  assert.is((await rows('select count(*)::text as k from pending_effects'))[0], '0', 'nothing owed');

  // Once: the same batch again, and another recovery, change nothing.
  const before = await rows(`select (select count(*) from alarms) || '/' || (select count(*) from alarm_changes) || '/' || (select count(*) from outbox) as k`);
  await live.handle(asInput(clearOut!), outsideConsumer);
  await live.handle(asInput(faultOut!), outsideConsumer);
  await recovering.onAssign!([0]);
  await recovering.onRevoke!([0]);
  assert.equal(await rows(`select (select count(*) from alarms) || '/' || (select count(*) from alarm_changes) || '/' || (select count(*) from outbox) as k`), before, 'a repeat writes nothing');
});

test('a device whose owed effects cannot be applied does not hold back the recovery of the others: theirs are applied, its own stay owed', async () => {
  const imeis = ['861000000000200', '861000000000300'];
  const devices = await findDevices(db.pool, imeis);
  const faults = imeis.map((imei) => {
    const device = devices.get(imei)!;
    assert.ok(device, `${imei} is a demo device`);
    const c = checkInOf('002-permanent-fault.json');
    return computed({ ...c, device_data: { ...c.device_data, IMEINumber: imei } }, { device });
  });
  await persistBatch(db.pool, faults);
  // The first device's row can no longer be read (as after a change that cannot read an older row).
  await db.pool.query(`update pending_effects set message = '{"unreadable":true}' where "IMEINumber" = $1`, [imeis[0]]);

  const recovering = notifyStage({ pool: db.pool, transport, ...BOUNDS });
  await recovering.onAssign!([0]);
  await recovering.onRevoke!([0]);
  assert.equal(await rows('select "IMEINumber" as k from pending_effects order by 1'), [imeis[0]], 'only the unreadable device is still owed');
  assert.equal(await rows(`select "IMEINumber" as k from alarms where kind = 'permanent' and "IMEINumber" = any('{${imeis.join(',')}}') order by 1`), [imeis[1]], 'the other device\'s alarm is raised');
  await db.pool.query('delete from pending_effects where "IMEINumber" = $1', [imeis[0]]);
});

test('split shape: a record stored by persist whose fi.persisted.v1 record was never produced (the upstream process died) is swept by the running notify consumer, its effects once', async () => {
  const [woken, orphan] = ['861000000000400', '861000000000500'];
  const notify = notifyStage({ pool: db.pool, transport, ...SWEEP });
  let subscription: Subscription | null = null;
  try {
    // notify in its own segment: a consumer of fi.persisted.v1, as `PIPELINE_SPLIT=notify` runs it.
    subscription = await runStage(notify, { transport });
    // A record that reaches notify the usual way shows the consumer is assigned and running.
    const [first] = await persistBatch(db.pool, [await demoFault(woken)]);
    await transport.producer().send([{ topic: TOPICS.persisted, key: woken, value: first! }]);
    await waitFor('the consumer applied the record it was sent', async () => (await rows(`select count(*)::text as k from pending_effects where "IMEINumber" = '${woken}'`))[0] === '0', { timeoutMs: 60_000, intervalMs: 200 });

    // Then persist commits another device's record and its process dies before producing it to fi.persisted.v1:
    // the redelivered check-in is dropped by dedup, notify's group does not move, the device checks in again
    // only tomorrow. Only the sweep comes to it.
    const fault = await demoFault(orphan);
    await persistBatch(db.pool, [fault]);
    tally.faultsInjected++;
    const applied = await waitFor('the orphaned record applied', async () => (await rows(`select count(*)::text as k from pending_effects where "IMEINumber" = '${orphan}'`))[0] === '0', { timeoutMs: 60_000, intervalMs: 500 })
      .then(() => true, () => false);
    const feed = await feedOf('dnp3.north', orphan);
    const { lost, duplicated } = countFeed([`${orphan}@${fault.checkIn.device_data.date}`], feed);
    assert.ok(applied, 'the record owed its effects is applied without any batch or assignment');
    assert.equal(await rows(`select "IMEINumber" || ' ' || kind as k from alarms where "IMEINumber" = '${orphan}'`), [`${orphan} permanent`], 'its permanent-fault alarm, once');
    assert.equal([lost, duplicated], [0, 0], `its DNP3 record once (${feed.join(', ')})`);
  } finally {
    await subscription?.stop();
  }
});

test('a notify transaction that fails (a real database error) and is retried produces the DNP3 feed record once', async () => {
  const imei = '861000000000600';
  const fault = await demoFault(imei);
  const [out] = await persistBatch(db.pool, [fault]);
  // The first write of the check-in clock fails, as a database error at notify's commit would (a sequence: it
  // counts outside the transaction the error rolls back).
  await db.pool.query(`create sequence notify_fails;
    create function notify_fails_once() returns trigger language plpgsql as $$
      begin if nextval('notify_fails') = 1 then raise exception 'injected: refused once'; end if; return null; end $$;
    create trigger notify_fails_once before insert on checkin_clock for each statement execute function notify_fails_once()`);
  try {
    const notify = notifyStage({ pool: db.pool, transport, ...BOUNDS });
    // The runner delivers a failed batch again (runtime/runner.ts): the same batch, twice.
    const first = await notify.handle(asInput(out!), outsideConsumer).then(() => 'applied', (err: Error) => err.message);
    assert.match(first, 'injected', 'the injected failure hit notify\'s transaction');
    tally.faultsInjected++;
    await notify.handle(asInput(out!), outsideConsumer);
  } finally {
    await db.pool.query('drop trigger notify_fails_once on checkin_clock; drop function notify_fails_once(); drop sequence notify_fails');
  }
  const feed = await feedOf('dnp3.north', imei);
  const { lost, duplicated } = countFeed([`${imei}@${fault.checkIn.device_data.date}`], feed);
  assert.equal([lost, duplicated], [0, 0], `the DNP3 record once, not once per attempt (${feed.join(', ')})`);
  assert.equal(await rows(`select "IMEINumber" as k from alarms where "IMEINumber" = '${imei}'`), [imei], 'the alarm once');
  assert.is((await rows(`select count(*)::text as k from pending_effects where "IMEINumber" = '${imei}'`))[0], '0', 'nothing owed');
});

test('a backlog larger than one produce may carry (max.message.bytes) is delivered in chunks: every record once', async () => {
  const imei = '861000000000000';
  const TOPIC = 'dnp3.backlog';
  const BACKLOG = 600;
  // A topic that takes at most 64 kB per produce: the backlog's records together are several times that.
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: names.topic(TOPIC), numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: String(64 * 1024) }] }] }).finally(() => admin.disconnect());
  await db.pool.query(`update device_information set "dnp3QueueAddress" = $2 where "IMEINumber" = $1`, [imei, TOPIC]);
  const device = (await findDevices(db.pool, [imei])).get(imei)!;
  assert.is(device.dnp3QueueAddress, TOPIC);

  // The device's records stored while notify was away (a long outage, a device that failed for hours).
  const base = checkInOf('001-plain-checkin.json');
  const t0 = Date.parse('2026-03-01T00:00:00Z');
  const backlog = Array.from({ length: BACKLOG }, (_, i) => computed({ ...base, events: [], device_data: { ...base.device_data, IMEINumber: imei, date: new Date(t0 + i * 60_000).toISOString() } }, { device }));
  let last: PersistedCheckIn | undefined;
  for (let i = 0; i < BACKLOG; i += 100) last = (await persistBatch(db.pool, backlog.slice(i, i + 100))).at(-1);
  assert.is((await rows(`select count(*)::text as k from pending_effects where "IMEINumber" = '${imei}'`))[0], String(BACKLOG), 'the backlog is owed');

  const notify = notifyStage({ pool: db.pool, transport, ...BOUNDS });
  const result = await notify.handle(asInput(last!), outsideConsumer).then(() => 'applied', (err: Error) => err.message);
  const feed = await feedOf(TOPIC, imei);
  const { lost, duplicated } = countFeed(backlog.map((c) => `${imei}@${c.checkIn.device_data.date}`), feed);
  assert.is(result, 'applied', 'the backlog\'s batch succeeds');
  assert.equal([lost, duplicated], [0, 0], `every record of the backlog once (${feed.length} arrived)`);
  assert.equal(feed, [...feed].sort(), 'in the order they were stored');
  assert.is((await rows(`select count(*)::text as k from pending_effects where "IMEINumber" = '${imei}'`))[0], '0', 'nothing owed');
});

test.run();
