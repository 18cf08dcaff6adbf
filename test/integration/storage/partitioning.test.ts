// Time partitioning on real PostgreSQL (migration 0008, storage/partitions.ts): the months exist ahead, persist
// makes the month a check-in brings, a row dated where no partition exists is kept in the default partition
// and moved out later, the idempotency keys still hold, and the parents take new columns.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { addMonths, monthOfMs, monthsAhead } from '../../../domain/storage-months.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { adoptStrays, MONTHS_AHEAD, timePartitions, strayMonths } from '../../../storage/partitions.js';
import { maintainStorage } from '../../../storage/maintenance.js';
import { checkInOf, computed } from '../../../support/checkins.js';
import { createTestDatabase, dumpTables, type TestDatabase } from '../../../support/database.js';

const test = suite('time partitions (real Postgres)');
let db: TestDatabase;
test.before(async () => { db = await createTestDatabase('partitions'); });
test.after(async () => { await db.drop(); });

const TABLES = ['device_currents', 'device_records', 'dm1_event_records', 'event_records'];
const partitionOf = async (sql: string, values: unknown[] = []) => (await db.pool.query<{ p: string }>(`select tableoid::regclass::text as p from ${sql}`, values)).rows.map((r) => r.p);

test('a fresh database has the current month and three ahead for each table, and a default partition each', async () => {
  const months = await timePartitions(db.pool);
  for (const month of monthsAhead(Date.now(), MONTHS_AHEAD)) {
    assert.equal(months.filter((m) => m.month === month).map((m) => m.table).sort(), TABLES, month);
  }
  const { rows } = await db.pool.query<{ relname: string }>(`select c.relname from pg_class c join pg_inherits i on i.inhrelid = c.oid where c.relname like '%\\_default' order by 1`);
  assert.equal(rows.map((r) => r.relname), TABLES.map((t) => `${t}_default`));
});

test('persist makes the month a check-in brings; its rows land there; the same batch again changes nothing', async () => {
  const template = checkInOf('002-permanent-fault.json');
  // A late check-in from a year ago (inside ON_DEMAND_MONTHS_BACK): a month that no longer exists ahead.
  const month = addMonths(monthOfMs(Date.now()), -12);
  const before = addMonths(month, -1);
  const p = (m: string) => m.replace('-', '');
  const date = `${month}-10T08:00:00.000Z`;
  const checkIn = { ...template, device_data: { ...template.device_data, date }, events: template.events.map((e) => ({ ...e, EventTimestamp: `${before}-28T23:59:50.000Z` })) };
  const [out] = await persistBatch(db.pool, [computed(checkIn)]);
  assert.ok(out!.ownsRecord);
  assert.equal(await partitionOf('device_records where "RecordID" = $1', [out!.DeviceRecordID]), [`device_records_p${p(month)}`]);
  assert.equal(await partitionOf('device_currents where "PacketTimestamp" = $1', [date]), [`device_currents_p${p(month)}`]);
  // An event is kept by the month it was reported in, which may be the month before its check-in's.
  assert.equal(await partitionOf('event_records where "DeviceRecordID" = $1', [out!.DeviceRecordID]), [`event_records_p${p(before)}`]);
  const tables = await dumpTables(db.pool);
  const [again] = await persistBatch(db.pool, [computed(checkIn)]);
  assert.is(again!.DeviceRecordID, out!.DeviceRecordID);
  assert.equal(await dumpTables(db.pool), tables, 'ON CONFLICT still dedupes across the partitioned unique keys');
});

test('a row dated where no partition exists is kept in the default partition, then moved into its month with counters intact', async () => {
  await db.pool.query(`insert into device_records ("IMEINumber", "date", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault")
    values ('861000000000999', '2015-05-05T05:05:05Z', 0, 0, 0)`);
  assert.equal(await partitionOf(`device_records where "IMEINumber" = '861000000000999'`), ['device_records_default']);
  assert.equal(await strayMonths(db.pool), ['2015-05']);
  const counted = async () => (await db.pool.query(`select records from device_read_counts where "IMEINumber" = '861000000000999'`)).rows[0]?.records;
  assert.is(await counted(), 1);
  assert.equal(await adoptStrays(db.pool), [], 'a month far from now is not made from device data (mayCreateMonth)');
  assert.equal(await adoptStrays(db.pool, Date.parse('2016-01-10T00:00:00Z')), ['2015-05'], 'in its time it was');
  assert.equal(await partitionOf(`device_records where "IMEINumber" = '861000000000999'`), ['device_records_p201505']);
  assert.is(await counted(), 1, 'moved, not counted twice');
  assert.equal(await strayMonths(db.pool), []);
});

test('a check-in from a month far from now is stored in the default partition; no partition is made for it', async () => {
  const template = checkInOf('002-permanent-fault.json');
  const date = '2003-07-10T08:00:00.000Z';
  const checkIn = { ...template, device_data: { ...template.device_data, IMEINumber: '861000000000777', date }, events: template.events.map((e) => ({ ...e, EventTimestamp: date })) };
  const [out] = await persistBatch(db.pool, [computed(checkIn)]);
  assert.ok(out!.ownsRecord, 'stored, not refused');
  assert.equal(await partitionOf('device_records where "RecordID" = $1', [out!.DeviceRecordID]), ['device_records_default']);
  assert.not.ok((await timePartitions(db.pool)).some((m) => m.month === '2003-07'), 'no 2003-07 partition');
});

test('maintenance (as `start` runs it) creates months ahead and adopts strays, and runs again harmlessly', async () => {
  const farAhead = Date.parse('2031-01-15T00:00:00Z');
  await maintainStorage(db.pool, '/nonexistent-archive-dir', farAhead);
  const months = new Set((await timePartitions(db.pool)).map((m) => m.month));
  for (const m of ['2031-01', '2031-02', '2031-03', '2031-04']) assert.ok(months.has(m), m);
  await maintainStorage(db.pool, '/nonexistent-archive-dir', farAhead);
});

test('the partitioned parents take a new column (as later migrations add them), and every partition has it', async () => {
  await db.pool.query('alter table device_records add column "ExampleLater" integer');
  const { rows } = await db.pool.query<{ n: string }>(`select count(*) as n from pg_inherits i join pg_class p on p.oid = i.inhparent
      where p.relname = 'device_records' and not exists (select 1 from pg_attribute a where a.attrelid = i.inhrelid and a.attname = 'ExampleLater')`);
  assert.is(Number(rows[0]!.n), 0);
  await db.pool.query('alter table device_records drop column "ExampleLater"');
});

test.run();
