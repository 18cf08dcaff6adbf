// A device's newest currents kept by the pipeline (migration 0057, docs/decisions.md#a-devices-newest-rows-kept)
// on real PostgreSQL: the back-fill of an upgrade, then every way rows come and go (newer rows one at a time past the
// trim, late rows older and newer than those kept, batches over many devices, deletes of the newest rows, a stray
// moved out of the default partition, two writers of one device at once); after each, every device's kept rows are
// its newest (test/helpers/newest-rows.ts). Through the app, a device's load history read from them answers what
// the partitioned table answers. Retention's drops and restores are checked in retention.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import type { Hono } from 'hono';
import { createApp } from '../../../api/app.js';
import { NEWEST_CURRENTS_KEPT } from '../../../api/device-records/load-history.js';
import { addMonths, monthBounds, monthDate, monthOfMs } from '../../../domain/storage-months.js';
import { migrate } from '../../../db/migrate.js';
import { timePartitions } from '../../../storage/partitions.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { assertNewestCurrentsKept, backendPid, maintainOnce, waitingOnLock } from '../../helpers/newest-rows.js';
import { login } from '../api/seeded-api.js';

const test = suite('a device\'s newest currents kept (real Postgres)');
const PREFIX = '8695000';
const imei = (n: number) => `${PREFIX}${String(n).padStart(8, '0')}`;
const HOUR = 3_600_000;
const NOW = Date.now();
/** Two months without partitions after the first test: their rows land in the default partition. */
const STRAY_MONTH = addMonths(monthOfMs(NOW), -8);
let db: TestDatabase;
let app: Hono;
let token = '';

/** Inserts currents of `device` at each of `at` in one statement (as persist and a restore write them: through the parent). */
const currents = (device: string, at: readonly number[], client: Pick<pg.Pool, 'query'> = db.pool) => client.query(
  `insert into device_currents ("PacketTimestamp", "IMEINumber", "PeakCurrent", "AverageCurrentH0", "CurrentName")
   select t, $1, extract(epoch from t) % 500, extract(minute from t), 'line ' || $1 from unnest($2::timestamptz[]) t
   on conflict do nothing`, [device, at.map((t) => new Date(t))]);
const hoursBack = (from: number, n: number, step = 1) => Array.from({ length: n }, (_, i) => from - i * step * HOUR);
const keptOf = async (device: string) => Number((await db.pool.query<{ n: string }>('select count(*) as n from device_currents_newest where "IMEINumber" = $1', [device])).rows[0]!.n);

test.before(async () => {
  db = await createTestDatabase('newest_currents', { upTo: '0055' });
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: PREFIX, devices: 6, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  // Before the upgrade: a device with more rows than kept over several months, and one with a few.
  await currents(imei(1), hoursBack(NOW - HOUR, 300, 5));
  await currents(imei(2), hoursBack(NOW - HOUR, 30, 24));
});
test.after(async () => { await db?.drop(); });

test('the upgrade keeps each device\'s newest rows (the back-fill), and the app\'s constant is the migration\'s', async () => {
  await migrate(db.pool, {});
  await assertNewestCurrentsKept(db.pool, 'after the back-fill');
  assert.equal([await keptOf(imei(1)), await keptOf(imei(2))], [NEWEST_CURRENTS_KEPT, 30]);
  const { rows } = await db.pool.query<{ kept: number }>('select fl_currents_newest_kept() as kept');
  assert.is(rows[0]!.kept, NEWEST_CURRENTS_KEPT);
  app = createApp({ readiness: {}, pool: db.pool, readCacheMs: 0, jwtSecret: new TextEncoder().encode('newest-currents-secret-newest-currents') });
  token = await login(app, 'northAdmin');
});

test('device_currents_newest has device_currents\' columns, in order (a column added to one is added to the other)', async () => {
  const columns = async (table: string) => (await db.pool.query<{ c: string }>(`select attname || ' ' || format_type(atttypid, atttypmod) as c from pg_attribute
     where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`, [table])).rows.map((r) => r.c);
  assert.equal(await columns('device_currents_newest'), await columns('device_currents'));
});

test('newer rows one at a time, past the slack and trimmed back; late rows older and newer than the oldest kept', async () => {
  for (let i = 1; i <= 60; i++) await currents(imei(1), [NOW + i * HOUR]);
  await assertNewestCurrentsKept(db.pool, 'after 60 newer rows one at a time');
  // Older than every row kept: not kept (the device has more than `kept`). Between kept rows: kept.
  await currents(imei(1), [NOW - 2000 * HOUR, NOW - 2 * HOUR - 30 * 60_000]);
  await assertNewestCurrentsKept(db.pool, 'after late rows');
  // With more than `kept` rows kept (below the trim), a late row just newer than the oldest kept: kept.
  while (await keptOf(imei(1)) <= NEWEST_CURRENTS_KEPT) await currents(imei(1), [NOW + 100 * HOUR + (await keptOf(imei(1))) * 60_000]);
  const oldest = (await db.pool.query<{ at: Date }>('select min("PacketTimestamp") as at from device_currents_newest where "IMEINumber" = $1', [imei(1)])).rows[0]!.at.getTime();
  await currents(imei(1), [oldest + 60_000]);
  await assertNewestCurrentsKept(db.pool, 'after a late row among the rows kept past `kept`');
  // A device with few rows keeps every one, late or not, until it has more than `kept`.
  await currents(imei(2), hoursBack(NOW - 5000 * HOUR, 90, 1));
  await assertNewestCurrentsKept(db.pool, 'after a few older rows of a small device');
});

test('batches over many devices in one statement, as persist and an archive restore write them', async () => {
  const rows = [3, 4, 5].flatMap((d) => hoursBack(NOW, 140, d).map((t) => ({ d, t })));
  await db.pool.query(`insert into device_currents ("PacketTimestamp", "IMEINumber", "PeakCurrent")
    select t, $1 || lpad(d::text, 8, '0'), 1 from unnest($2::int[], $3::timestamptz[]) as x(d, t)`, [PREFIX, rows.map((r) => r.d), rows.map((r) => new Date(r.t))]);
  await assertNewestCurrentsKept(db.pool, 'after one statement of 420 rows over three devices');
  await currents(imei(3), hoursBack(NOW + 500 * HOUR, 200, 1));
  await assertNewestCurrentsKept(db.pool, 'after 200 newer rows of one device in one statement');
});

test('deleting a device\'s newest rows thins what is kept: it is filled again from the older rows', async () => {
  await db.pool.query(`delete from device_currents where "IMEINumber" = $1 and "PacketTimestamp" > $2`, [imei(1), new Date(NOW - 100 * HOUR)]);
  await assertNewestCurrentsKept(db.pool, 'after the newest rows of a device were deleted');
  assert.is(await keptOf(imei(1)), NEWEST_CURRENTS_KEPT);
  await db.pool.query(`delete from device_currents where "IMEINumber" = $1`, [imei(4)]);
  assert.is(await keptOf(imei(4)), 0, 'a device without currents keeps none');
  await assertNewestCurrentsKept(db.pool, 'after every row of a device was deleted');
});

test('a stray moved out of the default partition when its month is made is kept as before', async () => {
  for (const p of (await timePartitions(db.pool)).filter((x) => x.month === STRAY_MONTH)) await db.pool.query(`drop table "${p.partition}"`);
  const from = monthBounds(STRAY_MONTH).fromMs;
  await currents(imei(2), hoursBack(from + 24 * HOUR, 5, 1));
  await currents(imei(6), [from + HOUR]);
  await assertNewestCurrentsKept(db.pool, 'with strays in the default partition');
  await db.pool.query('select fl_ensure_month($1::date)', [monthDate(STRAY_MONTH)]);
  const { rows } = await db.pool.query<{ n: string }>('select count(*) as n from device_currents_default where "PacketTimestamp" >= $1 and "PacketTimestamp" < $2',
    [new Date(from), new Date(monthBounds(STRAY_MONTH).untilMs)]);
  assert.is(Number(rows[0]!.n), 0, 'the month\'s strays moved');
  await assertNewestCurrentsKept(db.pool, 'after the strays moved');
});

test('two writers of one device at once: the second waits for the first, and what is kept is the newest of both', async () => {
  const first = new pg.Client({ connectionString: db.url });
  const second = new pg.Client({ connectionString: db.url });
  await first.connect();
  await second.connect();
  try {
    // The device has kept + slack rows: the first writer's row trims it.
    const device = imei(5);
    const n = await keptOf(device);
    await currents(device, hoursBack(NOW + 1000 * HOUR, 125 - n, 1));
    await first.query('begin');
    await currents(device, [NOW + 2000 * HOUR], first);
    // Newer than the oldest row kept before the first writer's trim, older than what it keeps after it.
    const late = (await db.pool.query<{ at: Date }>('select min("PacketTimestamp") + interval \'1 minute\' as at from device_currents_newest where "IMEINumber" = $1', [device])).rows[0]!.at.getTime();
    await second.query('begin');
    const secondPid = await backendPid(second);
    const written = currents(device, [late], second);
    await waitingOnLock(db.pool, secondPid, 'the second writer waiting for the first');
    await first.query('commit');
    await written;
    await second.query('commit');
  } finally {
    await first.query('rollback').catch(() => {});
    await second.query('rollback').catch(() => {});
    await first.end();
    await second.end();
  }
  await assertNewestCurrentsKept(db.pool, 'after two writers of one device');
});

test('an update (nothing updates currents today) is a delete and an insert: values and instants kept as updated', async () => {
  await db.pool.query(`update device_currents set "PeakCurrent" = -1 where "IMEINumber" = $1`, [imei(3)]);
  const newest = (await db.pool.query<{ at: Date }>('select max("PacketTimestamp") as at from device_currents where "IMEINumber" = $1', [imei(3)])).rows[0]!.at;
  await db.pool.query(`update device_currents set "PacketTimestamp" = "PacketTimestamp" - interval '9000 hours' where "IMEINumber" = $1 and "PacketTimestamp" = $2`, [imei(3), newest]);
  await assertNewestCurrentsKept(db.pool, 'after updates of a device\'s currents');
});

test('a month dropped without its kept rows removed (a previous release\'s retention) is repaired by the storage maintenance', async () => {
  const month = addMonths(monthOfMs(NOW), -14);
  await db.pool.query('select fl_ensure_month($1::date)', [monthDate(month)]);
  await currents(imei(7), hoursBack(monthBounds(month).fromMs + 48 * HOUR, 10, 1));
  await currents(imei(7), [NOW]);
  // As that retention dropped a month: its rows uncounted, the partitions dropped.
  for (const p of (await timePartitions(db.pool)).filter((x) => x.month === month)) await db.pool.query(`drop table "${p.partition}"`);
  await db.pool.query(`update device_read_counts set currents = 1 where "IMEINumber" = $1`, [imei(7)]);
  assert.is(await keptOf(imei(7)), 11, 'the dropped month\'s rows are still kept');
  await maintainOnce(db.pool, NOW);
  await assertNewestCurrentsKept(db.pool, 'after the maintenance');
  assert.is(await keptOf(imei(7)), 1);
});

test('through the app: a device\'s first pages read from the rows kept answer what device_currents answers', async () => {
  const get = async (path: string) => {
    const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
    assert.is(res.status, 200, path);
    return (await res.json()) as { data: unknown[]; total: number };
  };
  for (const device of [imei(1), imei(2), imei(3)]) {
    const base = `/device-records/device-information/load-history/${device}`;
    for (const page of ['', '?page=1', '?limit=100', '?page=3&limit=25', '?page=1&limit=60']) {
      // A filter every row passes reads device_currents (the rows kept serve only unfiltered pages).
      const all = `${base}${page ? `${page}&` : '?'}filterBy[PeakCurrent][gte]=-1`;
      const [kept, whole] = [await get(`${base}${page}`), await get(all)];
      assert.equal(kept, whole, `${device} ${page || 'first page'}`);
    }
  }
});

test.run();
