// Migration 0008 of a live installation on real PostgreSQL: a database at the schema before it, with data in
// every device-data table, is partitioned without losing or duplicating a row (row counts and checksums of
// every table before and after), and ingestion resumes at once with the identities going on. The migrations after
// it run too: migration 0051's months of critical events are backfilled from the rows stored, then kept by persist.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../../db/migrate.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { timePartitions } from '../../../storage/partitions.js';
import { checkInOf, computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { deviceDataColumns, generateDeviceData, registerDevices, seedOrganization, tableChecksums } from '../../../support/device-data.js';
import { assertMonthsCounted } from '../../helpers/critical-months.js';
import { assertDevicesCounted } from '../../helpers/device-counts.js';

const test = suite('migration 0008 of a live database (real Postgres)');
let db: TestDatabase;
const MONTHS = Array.from({ length: 7 }, (_, i) => addMonths(monthOfMs(Date.now()), i - 6));
test.before(async () => {
  db = await createTestDatabase('migration', { upTo: '0007' });
  await seedOrganization(db.pool, 'north');
  await registerDevices(db.pool, { prefix: '8650000', devices: 40, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: '8650000', devices: 40, count: 6000, months: MONTHS });
  await db.pool.query(`insert into model_change_alerts ("IMEINumber", "oldModel", "newModel", "at", "DeviceRecordID")
    select "IMEINumber", 'FCI-2000', 'FCI-3000', "date", "RecordID" from device_records where "RecordID" % 500 = 0`);
});
test.after(async () => { await db.drop(); });

test('every row of every device-data table survives, exactly once, and the months are partitions', async () => {
  // Compared on the columns of today's schema: the migrations after 0008 may add some.
  const columns = await deviceDataColumns(db.pool);
  const before = await tableChecksums(db.pool, columns);
  assert.ok(before.device_records!.rows >= 5900 && before.event_records!.rows > 4000 && before.dm1_event_records!.rows > 400 && before.device_currents!.rows >= 5900, JSON.stringify(before));
  const t0 = Date.now();
  const { applied } = await migrate(db.pool);
  assert.is(applied[0], '0008_time_partitions');
  const rows = Object.values(before).reduce((s, t) => s + t.rows, 0);
  console.log(`  migrated ${rows} rows in ${Date.now() - t0} ms`);
  assert.equal(await tableChecksums(db.pool, columns), before);
  const { rows: kind } = await db.pool.query<{ relname: string; relkind: string }>(
    `select relname, relkind from pg_class where relname in ('device_records', 'device_currents', 'event_records', 'dm1_event_records') order by 1`);
  assert.ok(kind.every((k) => k.relkind === 'p'), JSON.stringify(kind));
  const months = new Set((await timePartitions(db.pool)).filter((p) => p.table === 'device_records').map((p) => p.month));
  for (const m of MONTHS) assert.ok(months.has(m), m);
  const { rows: strays } = await db.pool.query<{ n: string }>('select count(*) as n from device_records_default');
  assert.is(Number(strays[0]!.n), 0, 'every migrated row is in its month');
  await assertMonthsCounted(db.pool, 'the events stored before migration 0051');
  await assertDevicesCounted(db.pool, 'the rows stored before migration 0053');
});

test('ingestion resumes: a check-in is stored with the next identity, its redelivery is a no-op, counters go on', async () => {
  const { rows } = await db.pool.query<{ max: number }>('select max("RecordID") as max from device_records');
  const template = checkInOf('002-permanent-fault.json');
  const date = new Date().toISOString();
  const checkIn = { ...template, device_data: { ...template.device_data, IMEINumber: '865000000000001', date }, events: template.events.map((e) => ({ ...e, EventID: 999_999, EventTimestamp: date })) };
  const [out] = await persistBatch(db.pool, [computed(checkIn)]);
  assert.ok(out!.DeviceRecordID > rows[0]!.max, 'the identity goes on after the migrated rows');
  assert.equal(out!.storedEventIds, [999_999]);
  const [again] = await persistBatch(db.pool, [computed(checkIn)]);
  assert.is(again!.DeviceRecordID, out!.DeviceRecordID);
  const counts = await db.pool.query(`select records, (select count(*)::int from device_records where "IMEINumber" = '865000000000001') as stored
      from device_read_counts where "IMEINumber" = '865000000000001'`);
  assert.is(counts.rows[0].records, counts.rows[0].stored);
  await assertMonthsCounted(db.pool, 'a fault event persisted after migration 0051');
  await assertDevicesCounted(db.pool, 'a check-in persisted (and redelivered) after migration 0053');
});

test.run();
