// A device's newest events kept by the pipeline (migration 0058, docs/decisions.md#a-devices-newest-rows-kept) on
// real PostgreSQL: the back-fill of an upgrade, then every way events come and go (newer events of either table one
// at a time past the trim, a standard and a DM1 event at the same instant, late events older and newer than those
// kept, batches over many devices, persist's move of a Fault <50 (an UPDATE of EventTimestamp) among, out of and
// into the kept rows, deletes of the newest events, a stray moved out of the default partition, two writers of one
// device at once); after each, every device's kept rows are its newest of both tables (test/helpers/newest-rows.ts).
// Through the app, a device's events read from them answer what the event tables answer. Retention's drops and
// restores are checked in retention.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { NEWEST_EVENTS_KEPT } from '../../../api/device-records/events.js';
import { addMonths, monthBounds, monthDate, monthOfMs } from '../../../domain/storage-months.js';
import { migrate } from '../../../db/migrate.js';
import { runRetention } from '../../../storage/retention.js';
import { timePartitions } from '../../../storage/partitions.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { assertNewestEventsKept, backendPid, maintainOnce, waitingOnLock } from '../../helpers/newest-rows.js';
import { login } from '../api/seeded-api.js';

const test = suite('a device\'s newest events kept (real Postgres)');
const PREFIX = '8696000';
const imei = (n: number) => `${PREFIX}${String(n).padStart(8, '0')}`;
const HOUR = 3_600_000;
const NOW = Date.now();
const MONTHS = [-2, -1, 0].map((i) => addMonths(monthOfMs(NOW), i));
/** A month without partitions in the stray test: its rows land in the default partitions. */
const STRAY_MONTH = addMonths(monthOfMs(NOW), -8);
let db: TestDatabase;
let app: Hono;
let token = '';
let eventId = 1_000_000;

/** Inserts events of `device` into `table` at each of `at`, in one statement, each tied to the device's first check-in. */
const events = (device: string, table: 'event_records' | 'dm1_event_records', at: readonly number[], client: Pick<pg.Pool, 'query'> = db.pool) => {
  const ids = at.map(() => eventId++);
  const columns = table === 'event_records' ? '"PrefaultCurrent", "FaultCurrent", "RecoverCurrent"' : '"PhaseAEvent", "PhaseBEvent", "PhaseCEvent"';
  const values = table === 'event_records' ? '40, 400, 10' : `'Fault', 'Normal', 'Normal'`;
  return client.query(`insert into ${table} ("EventID", "EventTimestamp", "EventType", ${columns}, "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
    select x.id, x.t, 'PFault', ${values}, x.t, $1, (select min("RecordID") from device_records where "IMEINumber" = $1), x.t
      from unnest($2::bigint[], $3::timestamptz[]) as x(id, t)`, [device, ids, at.map((t) => new Date(t))]);
};
const hoursBack = (from: number, n: number, step = 1) => Array.from({ length: n }, (_, i) => from - i * step * HOUR);
const keptOf = async (device: string) => Number((await db.pool.query<{ n: string }>('select count(*) as n from device_events_newest where "IMEINumber" = $1', [device])).rows[0]!.n);

test.before(async () => {
  db = await createTestDatabase('newest_events', { upTo: '0057' });
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 6, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  // Before the upgrade: six devices with 100-200 events each (of both tables), and one more event table row or two for the few.
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 6, count: 1200, months: MONTHS });
});
test.after(async () => { await db?.drop(); });

test('the upgrade keeps each device\'s newest events (the back-fill), and the app\'s constant is the migration\'s', async () => {
  await migrate(db.pool, {});
  await assertNewestEventsKept(db.pool, 'after the back-fill');
  assert.ok(await keptOf(imei(1)) >= NEWEST_EVENTS_KEPT);
  const { rows } = await db.pool.query<{ kept: number }>('select fl_events_newest_kept() as kept');
  assert.is(rows[0]!.kept, NEWEST_EVENTS_KEPT);
  app = createApp({ readiness: {}, pool: db.pool, readCacheMs: 0, jwtSecret: new TextEncoder().encode('newest-events-secret-newest-events-secret') });
  token = await login(app, 'northAdmin');
});

test('newer events of either table one at a time past the trim; a standard and a DM1 event at one instant; late events', async () => {
  for (let i = 1; i <= 40; i++) await events(imei(1), i % 3 === 0 ? 'dm1_event_records' : 'event_records', [NOW + i * HOUR]);
  await events(imei(1), 'event_records', [NOW + 100 * HOUR]);
  await events(imei(1), 'dm1_event_records', [NOW + 100 * HOUR]);
  await assertNewestEventsKept(db.pool, 'after 42 newer events one at a time');
  await events(imei(1), 'event_records', [NOW - 5000 * HOUR]);
  await assertNewestEventsKept(db.pool, 'after an event older than every one kept');
  // With more than `kept` kept (below the trim), an event just after the last kept, and one at its instant.
  while (await keptOf(imei(1)) <= NEWEST_EVENTS_KEPT) await events(imei(1), 'event_records', [NOW + 200 * HOUR + (await keptOf(imei(1))) * 60_000]);
  const last = (await db.pool.query<{ at: Date }>('select min("EventTimestamp") as at from device_events_newest where "IMEINumber" = $1', [imei(1)])).rows[0]!.at.getTime();
  await events(imei(1), 'dm1_event_records', [last + 1]);
  await events(imei(1), 'dm1_event_records', [last]);
  await events(imei(1), 'event_records', [last]);
  await assertNewestEventsKept(db.pool, 'after late events among and at the last kept');
});

test('batches over many devices in one statement, as persist and an archive restore write them', async () => {
  await generateDeviceData(db.pool, { prefix: PREFIX, devices: 6, first: 5000, count: 1500, months: [addMonths(monthOfMs(NOW), 1)] });
  await assertNewestEventsKept(db.pool, 'after one statement of events over six devices');
});

test('persist\'s move of an event\'s EventTimestamp (an UPDATE): among the kept, out of them, and into them', async () => {
  const kept = async (device: string) => (await db.pool.query<{ id: string; at: Date }>(
    `select "Event_Record_ID" as id, "EventTimestamp" as at from device_events_newest where "IMEINumber" = $1 and "EventTable" = 'standard' order by "EventTimestamp" desc`, [device])).rows;
  const move = (id: string, to: Date) => db.pool.query(`update event_records set "EventTimestamp" = $2, "TimestampShifted" = true where "Event_Record_ID" = $1`, [id, to]);
  const rows = await kept(imei(2));
  await move(rows[0]!.id, new Date(rows[0]!.at.getTime() - 60_000));
  await assertNewestEventsKept(db.pool, 'after the newest event moved a minute back');
  await move(rows[1]!.id, new Date(NOW - 9000 * HOUR));
  await assertNewestEventsKept(db.pool, 'after an event kept moved past every one kept');
  const old = (await db.pool.query<{ id: string }>(`select e."Event_Record_ID" as id from event_records e where e."IMEINumber" = $1
     and not exists (select 1 from device_events_newest k where k."EventTable" = 'standard' and k."Event_Record_ID" = e."Event_Record_ID") limit 1`, [imei(2)])).rows[0]!;
  await move(old.id, new Date(NOW + 9000 * HOUR));
  await assertNewestEventsKept(db.pool, 'after an event not kept moved before every one kept');
  // Every event of a device moved at once (one statement).
  await db.pool.query(`update event_records set "EventTimestamp" = "EventTimestamp" - interval '1 hour' where "IMEINumber" = $1`, [imei(3)]);
  await assertNewestEventsKept(db.pool, 'after every event of a device moved in one statement');
});

test('deleting a device\'s newest events thins what is kept: it is filled again from both tables', async () => {
  await db.pool.query(`delete from event_records where "IMEINumber" = $1 and "EventTimestamp" > $2`, [imei(4), new Date(NOW - 30 * 24 * HOUR)]);
  await assertNewestEventsKept(db.pool, 'after the newest standard events of a device were deleted');
  await db.pool.query(`delete from dm1_event_records where "IMEINumber" = $1`, [imei(4)]);
  await assertNewestEventsKept(db.pool, 'after every DM1 event of a device was deleted');
});

test('a stray moved out of the default partition when its month is made is kept as before', async () => {
  for (const p of (await timePartitions(db.pool)).filter((x) => x.month === STRAY_MONTH)) await db.pool.query(`drop table "${p.partition}"`);
  const from = monthBounds(STRAY_MONTH).fromMs;
  await events(imei(5), 'event_records', hoursBack(from + 24 * HOUR, 5, 1));
  await events(imei(6), 'dm1_event_records', [from + HOUR]);
  await assertNewestEventsKept(db.pool, 'with strays in the default partitions');
  await db.pool.query('select fl_ensure_month($1::date)', [monthDate(STRAY_MONTH)]);
  await assertNewestEventsKept(db.pool, 'after the strays moved');
});

test('two writers of one device at once (an insert, and a move that nothing counts): what is kept is the newest of both', async () => {
  const first = new pg.Client({ connectionString: db.url });
  const second = new pg.Client({ connectionString: db.url });
  await first.connect();
  await second.connect();
  try {
    const device = imei(6);
    await first.query('begin');
    await events(device, 'event_records', [NOW + 3000 * HOUR], first);
    const newest = (await db.pool.query<{ id: string }>(`select "Event_Record_ID" as id from event_records where "IMEINumber" = $1 order by "EventTimestamp" desc limit 1`, [device])).rows[0]!;
    await second.query('begin');
    const secondPid = await backendPid(second);
    const moved = second.query(`update event_records set "EventTimestamp" = "EventTimestamp" - interval '1 minute' where "Event_Record_ID" = $1`, [newest.id]);
    await waitingOnLock(db.pool, secondPid, 'the second writer waiting for the first');
    await first.query('commit');
    await moved;
    await second.query('commit');
  } finally {
    await first.query('rollback').catch(() => {});
    await second.query('rollback').catch(() => {});
    await first.end();
    await second.end();
  }
  await assertNewestEventsKept(db.pool, 'after two writers of one device');
});

test('moving a kept event reads no partition while the device needs no fill: it does not wait for a retention drop holding an old month', async () => {
  const month = addMonths(monthOfMs(NOW), -20);
  await db.pool.query('select fl_ensure_month($1::date)', [monthDate(month)]);
  const partition = (await timePartitions(db.pool)).find((x) => x.month === month && x.table === 'event_records')!.partition;
  const device = imei(5);
  const kept = (await db.pool.query<{ id: string; reported: Date }>(`select "Event_Record_ID" as id, "ReportedEventTimestamp" as reported from device_events_newest
     where "IMEINumber" = $1 and "EventTable" = 'standard' order by "EventTimestamp" desc limit 1`, [device])).rows[0]!;
  const retention = new pg.Client({ connectionString: db.url });
  const persist = new pg.Client({ connectionString: db.url });
  await retention.connect();
  await persist.connect();
  try {
    // Retention's drop holds the old month's partition (it then waits for the counter rows a writer holds).
    await retention.query('begin');
    await retention.query(`lock table "${partition}" in access exclusive mode`);
    await persist.query('begin');
    await persist.query(`set local lock_timeout = '3s'`);
    await events(device, 'event_records', [NOW + 4000 * HOUR], persist);
    // As persist's move names it: by its partition key too, so only its partition is planned.
    await persist.query(`update event_records set "EventTimestamp" = "EventTimestamp" - interval '1 minute' where "Event_Record_ID" = $1 and "ReportedEventTimestamp" = $2`, [kept.id, kept.reported]);
    await persist.query('commit');
  } finally {
    await persist.query('rollback').catch(() => {});
    await retention.query('rollback').catch(() => {});
    await persist.end();
    await retention.end();
  }
  await assertNewestEventsKept(db.pool, 'after a move beside a drop');
});

test('a month dropped without its kept events removed (a previous release\'s retention) is repaired by the storage maintenance', async () => {
  const month = addMonths(monthOfMs(NOW), -14);
  await db.pool.query('select fl_ensure_month($1::date)', [monthDate(month)]);
  const device = imei(6);
  await db.pool.query(`delete from event_records where "IMEINumber" = $1`, [device]);
  await db.pool.query(`delete from dm1_event_records where "IMEINumber" = $1`, [device]);
  await events(device, 'event_records', hoursBack(monthBounds(month).fromMs + 48 * HOUR, 10, 1));
  await events(device, 'dm1_event_records', [NOW]);
  // A DM1 event older than every partition (a stray in the default partition): kept, and not the sweep's to remove.
  await events(device, 'dm1_event_records', [monthBounds(addMonths(month, -30)).fromMs]);
  // As that retention dropped a month: its rows uncounted, the partitions dropped.
  for (const p of (await timePartitions(db.pool)).filter((x) => x.month === month)) await db.pool.query(`drop table "${p.partition}"`);
  await db.pool.query(`update device_read_counts set events = 2, critical_events = 2 where "IMEINumber" = $1`, [device]);
  assert.is(await keptOf(device), 12, 'the dropped month\'s events are still kept');
  await maintainOnce(db.pool, NOW);
  await assertNewestEventsKept(db.pool, 'after the maintenance');
  assert.is(await keptOf(device), 2);
});

test('through the app: a device\'s first pages read from the events kept answer what the event tables answer', async () => {
  const get = async (path: string) => {
    const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
    assert.is(res.status, 200, path);
    return (await res.json()) as { data: unknown[]; total: number };
  };
  for (const device of [imei(1), imei(2), imei(4), imei(6)]) {
    const base = `/device-records/device-information/events/${device}`;
    for (const page of ['', '?page=1', '?limit=100', '?page=3&limit=25', '?page=1&limit=60']) {
      // A filter every event passes reads the event tables (the rows kept serve only unfiltered pages).
      const all = `${base}${page ? `${page}&` : '?'}filterBy[EventID][gte]=0`;
      const [kept, whole] = [await get(`${base}${page}`), await get(all)];
      assert.equal(kept, whole, `${device} ${page || 'first page'}`);
    }
  }
});

test('a batch whose move needs a fill, beside retention dropping a month of the device: both complete, no deadlock', async () => {
  const month = addMonths(monthOfMs(NOW), -20);
  const device = imei(5);
  await events(device, 'event_records', [monthBounds(month).fromMs + 24 * HOUR]);
  // Only the event table's month expires (the others' are empty: gone first), so the drop is the step that meets the batch.
  for (const p of (await timePartitions(db.pool)).filter((x) => x.month <= month && x.table !== 'event_records')) await db.pool.query(`drop table "${p.partition}"`);
  await db.pool.query('update organizations set "RetentionMonths" = 12');
  const persist = new pg.Client({ connectionString: db.url });
  await persist.connect();
  const archiveDir = mkdtempSync(join(tmpdir(), 'faultline-newest-'));
  try {
    // A persist batch: its events trim the device back to exactly `kept` (and hold its counter row to commit).
    await persist.query('begin');
    const kept = Number((await persist.query<{ n: string }>('select events_kept as n from device_read_counts where "IMEINumber" = $1', [device])).rows[0]!.n);
    await events(device, 'event_records', hoursBack(NOW + 6000 * HOUR, 126 - kept + NEWEST_EVENTS_KEPT, 1), persist);
    // Retention's drop of the month starts and waits for the device's counter row.
    const retention = runRetention(db.pool, { archiveDir, now: NOW });
    await waitFor('retention waiting for a lock', async () =>
      Number((await db.pool.query(`select count(*) as n from pg_locks where not granted and pid <> $1`, [(await persist.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid])).rows[0].n) > 0 || null);
    // The batch moves its oldest kept event past every one kept: the device needs a fill, from every partition.
    const oldest = (await persist.query<{ id: string; reported: Date }>(`select "Event_Record_ID" as id, "ReportedEventTimestamp" as reported from device_events_newest
       where "IMEINumber" = $1 order by "EventTimestamp", "EventTable" desc, "Event_Record_ID" limit 1`, [device])).rows[0]!;
    await persist.query(`update event_records set "EventTimestamp" = "EventTimestamp" - interval '30 seconds' where "Event_Record_ID" = $1 and "ReportedEventTimestamp" = $2`, [oldest.id, oldest.reported]);
    await persist.query('commit');
    const report = await retention;
    assert.equal(report.failed, [], 'every retention step done');
    assert.ok(report.steps.some((st) => st.table === 'event_records' && st.month === month && st.action === 'drop'), 'the month dropped');
  } finally {
    await persist.query('rollback').catch(() => {});
    await persist.end();
    rmSync(archiveDir, { recursive: true, force: true });
  }
  await assertNewestEventsKept(db.pool, 'after the batch and the drop');
});

test.run();
