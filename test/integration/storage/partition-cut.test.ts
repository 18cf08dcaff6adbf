// Partitions sized for the fleet on real PostgreSQL (migration 0049, storage/partitions.ts,
// docs/decisions.md#partition-granularity): migration 0049 on a live database changes nothing; a month is cut
// into one partition, four or one a day; a change of cut on a live database keeps the partitions that exist,
// cuts new months by the new size and leaves no gap or overlap (a partly covered month has only its gaps
// filled); retention removes the same rows and writes the same archive files whatever the cut; and a process
// killed between the steps of a change leaves a database the next run completes. The read routes of device data
// answer the same bytes at the month and the day cut (docs/decisions.md#reads-bounded-at-a-fine-cut).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { createApp } from '../../../api/app.js';
import type { Seam } from '../../../config/failpoints.js';
import { migrate } from '../../../db/migrate.js';
import { recommendGranularity, type Granularity } from '../../../domain/partition-granularity.js';
import { addMonths, monthBounds, monthOfMs } from '../../../domain/storage-months.js';
import { maintainStorage } from '../../../storage/maintenance.js';
import { measuredFleet, partitionCut, recordPartitionCut, timePartitions } from '../../../storage/partitions.js';
import { runRetention } from '../../../storage/retention.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices, seedOrganization, tableChecksums } from '../../../support/device-data.js';
import { assertNewestCurrentsKept, assertNewestEventsKept } from '../../helpers/newest-rows.js';
import { importDemoData } from '../../../support/reference-data.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';
import { JWT_SECRET, login, type UserName } from '../api/seeded-api.js';

const test = suite('partition cut: month, week or day (real Postgres)');
const CHILD = fileURLToPath(new URL('./maintain-once.ts', import.meta.url));
const TABLES = ['device_currents', 'device_records', 'dm1_event_records', 'event_records'];
const NOW = Date.now();
const CURRENT = monthOfMs(NOW);
const M = (n: number) => addMonths(CURRENT, n);
/** An instant in the middle of month `n` from now: a maintenance run's `now` that many months on. */
const midOf = (n: number) => monthBounds(M(n)).fromMs + 14 * 86_400_000;
const DAY_MS = 86_400_000;
const tally: Tally = emptyTally();
const opened: TestDatabase[] = [];
const archiveDirs: string[] = [];

async function database(name: string, options: { upTo?: string } = {}): Promise<TestDatabase> {
  const db = await createTestDatabase(name, options);
  opened.push(db);
  return db;
}
function archiveDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-cut-'));
  archiveDirs.push(dir);
  return dir;
}
test.after(async () => {
  for (const db of opened) await db.drop();
  for (const dir of archiveDirs) rmSync(dir, { recursive: true, force: true });
  reportTally('storage/partition-cut', tally);
});

/** The pieces of `month` in `table`, as [first day, day after the last] (the next month's 1st is its length + 1). */
async function pieces(pool: pg.Pool, table: string, month: string): Promise<[number, number][]> {
  const { fromMs } = monthBounds(month);
  return (await timePartitions(pool)).filter((p) => p.table === table && p.month === month)
    .map((p) => [1 + (p.fromMs - fromMs) / DAY_MS, 1 + (p.untilMs - fromMs) / DAY_MS]);
}
const daysIn = (month: string) => { const b = monthBounds(month); return (b.untilMs - b.fromMs) / DAY_MS; };
const wholeMonth = (month: string): [number, number][] => [[1, daysIn(month) + 1]];
const everyDay = (month: string): [number, number][] => Array.from({ length: daysIn(month) }, (_, i) => [i + 1, i + 2]);
const weeks = (month: string): [number, number][] => [[1, 8], [8, 15], [15, 22], [22, daysIn(month) + 1]];

/** Every table's partitions from `first` to `last` month: each next one starts where the one before ends. */
async function assertContiguous(pool: pg.Pool, first: string, last: string): Promise<void> {
  const from = monthBounds(first).fromMs, until = monthBounds(last).untilMs;
  for (const table of TABLES) {
    const parts = (await timePartitions(pool)).filter((p) => p.table === table && p.fromMs >= from && p.untilMs <= until);
    let at = from;
    for (const p of parts) {
      assert.is(new Date(p.fromMs).toISOString(), new Date(at).toISOString(), `${table}: ${p.partition} starts where the one before ends`);
      at = p.untilMs;
    }
    assert.is(new Date(at).toISOString(), new Date(until).toISOString(), `${table}: covered to the end of ${last}`);
  }
}
/** Rows the default partitions hold dated in `months` (all months when none given). */
async function defaultRows(pool: pg.Pool, months: string[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`select
      (select count(*) from device_records_default where $1 or to_char("date" at time zone 'UTC', 'YYYY-MM') = any($2))
    + (select count(*) from device_currents_default where $1 or to_char("PacketTimestamp" at time zone 'UTC', 'YYYY-MM') = any($2))
    + (select count(*) from event_records_default where $1 or to_char("ReportedEventTimestamp" at time zone 'UTC', 'YYYY-MM') = any($2))
    + (select count(*) from dm1_event_records_default where $1 or to_char("ReportedEventTimestamp" at time zone 'UTC', 'YYYY-MM') = any($2)) as n`,
  [months.length === 0, months]);
  return Number(rows[0]!.n);
}
/** The insert-time columns (`default now()`) of the device-data tables set to one instant: twins filled at different times then match. */
async function pinInsertTimes(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ table_name: string; column_name: string }>(`select table_name, column_name from information_schema.columns
     where table_schema = 'public' and table_name = any($1) and column_default like 'now()%'`, [TABLES]);
  for (const r of rows) await pool.query(`update "${r.table_name}" set "${r.column_name}" = '2026-01-01T00:00:00Z'`);
}
const partitionNames = async (pool: pg.Pool) => (await timePartitions(pool)).map((p) => p.partition).sort();

test('migration 0049 on a live database: every row and partition stays, the cut recorded is month', async () => {
  // Up to the migration before: the schema a live installation has when 0049 arrives.
  const db = await database('cut-migration', { upTo: '0048' });
  await seedOrganization(db.pool, 'north');
  await registerDevices(db.pool, { prefix: '8680000', devices: 20, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  for (const m of [M(-2), M(-1)]) await db.pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
  await generateDeviceData(db.pool, { prefix: '8680000', devices: 20, count: 1200, months: [M(-2), M(-1), M(0)] });
  const before = await tableChecksums(db.pool);
  const { rows: names } = await db.pool.query<{ relname: string }>(`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent in ('device_records'::regclass, 'device_currents'::regclass, 'event_records'::regclass, 'dm1_event_records'::regclass) and c.relname !~ '_default$' order by 1`);
  // To 0049 alone: a later migration may change what a table holds (0052 adds device_read_counts' columns).
  const { applied } = await migrate(db.pool, { upTo: '0049' });
  assert.equal(applied, ['0049_partition_granularity']);
  assert.equal(await tableChecksums(db.pool), before);
  assert.equal(await partitionNames(db.pool), names.map((r) => r.relname));
  assert.is(await partitionCut(db.pool), 'month');
  assert.is((await db.pool.query('select fl_ensure_month($1::date) as made', [`${M(-1)}-01`])).rows[0].made, 0, 'a covered month is left alone');
});

test('a month is cut into one partition, four (1-7, 8-14, 15-21, 22-end) or one a day, named by its range', async () => {
  const db = await database('cut-pieces');
  const cases: [string, Granularity, [number, number][]][] = [
    [M(-20), 'month', wholeMonth(M(-20))], [M(-19), 'week', weeks(M(-19))], [M(-18), 'day', everyDay(M(-18))],
  ];
  for (const [month, cut, want] of cases) {
    await recordPartitionCut(db.pool, cut);
    const made = (await db.pool.query('select fl_ensure_month($1::date) as made', [`${month}-01`])).rows[0].made;
    assert.is(made, want.length * TABLES.length, `${cut}: partitions made`);
    for (const table of TABLES) assert.equal(await pieces(db.pool, table, month), want, `${table} ${month} by ${cut}`);
  }
  const names = await partitionNames(db.pool);
  const ym = (m: string) => m.replace('-', '');
  assert.ok(names.includes(`device_records_p${ym(M(-20))}`), 'a whole month keeps its old name');
  assert.ok(names.includes(`device_records_p${ym(M(-19))}22`), 'a piece is named by the day it starts');
  assert.ok(names.includes(`event_records_p${ym(M(-18))}${String(daysIn(M(-18))).padStart(2, '0')}`));
  await assertContiguous(db.pool, M(-20), M(-18));
});

test('a month partly covered (two day partitions exist) has only its gaps filled, at month or at week cut; its stray rows move in', async () => {
  const db = await database('cut-partial');
  await seedOrganization(db.pool, 'north');
  await registerDevices(db.pool, { prefix: '8690000', devices: 30, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  const expect: [string, Granularity, [number, number][]][] = [
    [M(-10), 'month', [[1, 10], [10, 11], [11, 12], [12, daysIn(M(-10)) + 1]]],
    [M(-9), 'week', [[1, 8], [8, 10], [10, 11], [11, 12], [12, 15], [15, 22], [22, daysIn(M(-9)) + 1]]],
  ];
  for (const [month] of expect) {
    // Days 10 and 11 exist as partitions (a day cut begun there); the rest of the month's rows sit in the default partitions.
    for (const t of TABLES) {
      for (const day of ['10', '11']) {
        const lo = new Date(Date.parse(`${month}-${day}T00:00:00Z`)).toISOString(), hi = new Date(Date.parse(`${month}-${day}T00:00:00Z`) + DAY_MS).toISOString();
        await db.pool.query(`create table ${t}_p${month.replace('-', '')}${day} partition of ${t} for values from ('${lo}') to ('${hi}')`);
      }
    }
  }
  await generateDeviceData(db.pool, { prefix: '8690000', devices: 30, count: 3000, months: expect.map(([m]) => m) });
  const before = await tableChecksums(db.pool);
  const months = expect.map(([m]) => m);
  assert.ok(await defaultRows(db.pool, months) > 0, 'rows wait in the default partitions');
  for (const [month, cut, want] of expect) {
    const made = (await db.pool.query('select fl_ensure_month($1::date, $2) as made', [`${month}-01`, cut])).rows[0].made;
    assert.is(made, (want.length - 2) * TABLES.length, `${month} by ${cut}: only the gaps are made`);
    for (const table of TABLES) assert.equal(await pieces(db.pool, table, month), want, `${table} ${month}`);
  }
  await assertContiguous(db.pool, M(-10), M(-9));
  assert.is(await defaultRows(db.pool, months), 0, 'every stray row of the two months moved into its new partition');
  assert.equal(await tableChecksums(db.pool), before, 'nothing lost, nothing doubled, counters unchanged');
  await assertNewestCurrentsKept(db.pool, 'after the strays moved in');
  await assertNewestEventsKept(db.pool, 'after the strays moved in');
});

test('month -> day -> month on a live database: partitions that exist stay, new months take the new cut, no gap, no row moved or lost', async () => {
  const db = await database('cut-change');
  const dir = archiveDir();
  await seedOrganization(db.pool, 'north');
  await registerDevices(db.pool, { prefix: '8700000', devices: 20, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  // M-3 too: an event is dated up to 10 s before its check-in, so the first check-ins of M-2 bring some.
  for (const m of [M(-3), M(-2), M(-1)]) await db.pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
  await generateDeviceData(db.pool, { prefix: '8700000', devices: 20, count: 1200, months: [M(-2), M(-1), M(0), M(1)] });
  const before = await tableChecksums(db.pool);
  const existing = await partitionNames(db.pool);
  // What `faultline retention status` recommends from: the devices and their recent rate, measured.
  const fleet = await measuredFleet(db.pool, NOW);
  assert.is(fleet.devices, 20);
  assert.ok(fleet.checkInsPerDevicePerDay > 0 && fleet.checkInsPerDevicePerDay < 96, String(fleet.checkInsPerDevicePerDay));
  assert.is(recommendGranularity(fleet), 'month');

  await maintainStorage(db.pool, dir, NOW, 'day');
  assert.is(await partitionCut(db.pool), 'day');
  assert.equal(await partitionNames(db.pool), existing, 'the months that exist (current and three ahead) keep their month partitions');
  assert.equal(await tableChecksums(db.pool), before);

  // Four months on, maintenance creates the months after those: cut by day.
  await maintainStorage(db.pool, dir, midOf(4), 'day');
  for (const table of TABLES) {
    assert.equal(await pieces(db.pool, table, M(3)), wholeMonth(M(3)), `${table}: the month created before the change stays whole`);
    for (const n of [4, 5, 6, 7]) assert.equal(await pieces(db.pool, table, M(n)), everyDay(M(n)), `${table} ${M(n)} by day`);
  }
  await generateDeviceData(db.pool, { prefix: '8700000', devices: 20, first: 5000, count: 600, months: [M(4), M(5)] });
  const { rows: homes } = await db.pool.query<{ p: string }>(`select distinct tableoid::regclass::text as p from device_records where "date" >= $1`, [new Date(monthBounds(M(4)).fromMs)]);
  assert.ok(homes.length > 20 && homes.every((h) => /_p\d{8}$/.test(h.p)), `rows of a day-cut month are in day partitions: ${homes.map((h) => h.p).join(', ')}`);

  // And back: months after the day-cut ones are whole months again.
  await maintainStorage(db.pool, dir, midOf(8), 'month');
  for (const table of TABLES) {
    assert.equal(await pieces(db.pool, table, M(7)), everyDay(M(7)));
    for (const n of [8, 9, 10, 11]) assert.equal(await pieces(db.pool, table, M(n)), wholeMonth(M(n)), `${table} ${M(n)} whole`);
  }
  await assertContiguous(db.pool, M(-3), M(11));
  assert.is(await defaultRows(db.pool), 0);
  const after = await tableChecksums(db.pool);
  assert.is(after.device_records!.rows, before.device_records!.rows + 600, 'every row kept, the new ones added');
});

test('retention across a change of cut removes the same rows and writes byte-identical archive files as at the month cut', async () => {
  // Twins with the same rows: one cut by month throughout, one with a change to day and back (M-7 and M-6 by
  // day). Keeping 6 months, M-9 .. M-7 expire: month-cut and day-cut months on both sides of the kept edge.
  const monthly = await database('cut-twin-month');
  const mixed = await database('cut-twin-mixed');
  const MONTHS = Array.from({ length: 10 }, (_, i) => M(i - 9));
  for (const [db, cutOf] of [[monthly, () => 'month'], [mixed, (n: number) => (n === -7 || n === -6 ? 'day' : 'month')]] as const) {
    for (const org of ['north', 'south']) await seedOrganization(db.pool, org);
    await registerDevices(db.pool, { prefix: '8710000', devices: 20, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
    await registerDevices(db.pool, { prefix: '8720000', devices: 20, org: 'south', powerLines: ['south-F12', 'south-F7'], groups: ['south-east', 'south-west'] });
    for (let n = -9; n <= -1; n++) await db.pool.query('select fl_ensure_month($1::date, $2)', [`${M(n)}-01`, cutOf(n)]);
    await generateDeviceData(db.pool, { prefix: '8710000', devices: 20, count: 2000, months: MONTHS });
    await generateDeviceData(db.pool, { prefix: '8720000', devices: 20, first: 10_000, count: 2000, months: MONTHS });
    await pinInsertTimes(db.pool);
  }
  assert.equal(await pieces(mixed.pool, 'event_records', M(-7)), everyDay(M(-7)));
  assert.equal(await tableChecksums(mixed.pool), await tableChecksums(monthly.pool), 'the twins hold the same rows');

  const archives = async (db: TestDatabase) => (await db.pool.query<{ table_name: string; month: string; org: string | null; row_count: string; checksum: string; file: string }>(
    `select table_name, to_char(month, 'YYYY-MM') as month, "OrganizationID" as org, row_count, checksum, file from storage_archives order by 1, 2, 3`)).rows
    .map((r) => ({ table: r.table_name, month: r.month, org: r.org, rows: Number(r.row_count), checksum: r.checksum, sha256: createHash('sha256').update(readFileSync(r.file)).digest('hex') }));
  const dirs = new Map([[monthly, archiveDir()], [mixed, archiveDir()]]);
  // One organisation expires first (its share deleted), then both (the months dropped whole).
  for (const orgs of [`'north'`, `'north', 'south'`]) {
    for (const db of [monthly, mixed]) {
      await db.pool.query(`update organizations set "RetentionMonths" = 6 where "OrganizationID" in (${orgs})`);
      const report = await runRetention(db.pool, { archiveDir: dirs.get(db)!, now: NOW });
      assert.equal(report.failed, []);
      assert.is(report.steps.length, 12, '4 tables x 3 months, one step each whatever the cut');
    }
    const [a, b] = [await archives(monthly), await archives(mixed)];
    assert.ok(a.length >= 12);
    assert.equal(b, a, 'the same files (table, month, organisation), with the same rows, checksum and bytes');
    assert.equal(await tableChecksums(mixed.pool), await tableChecksums(monthly.pool), 'the same rows kept, counters alike');
  }
  const left = await timePartitions(mixed.pool);
  for (const n of [-9, -8, -7]) assert.not.ok(left.some((p) => p.month === M(n)), `${M(n)} dropped whole`);
  assert.equal(await pieces(mixed.pool, 'device_records', M(-6)), everyDay(M(-6)), 'the first kept month stays, every day of it');
  assert.is(await defaultRows(mixed.pool, MONTHS), 0);
});

test('the device-data read routes answer the same bytes at the month and the day cut: pages, offsets, weeks, other orders, keyset pages to the end', async () => {
  // Twins with the same rows: M-2 and M-1 cut by month in one, by day in the other (the current month exists
  // whole in both: migration 0008), and a few check-ins of M-5, where no partition exists: the default partitions.
  const PREFIX = '8730000';
  const twins = [await database('cut-reads-month'), await database('cut-reads-day')];
  for (const [db, cut] of [[twins[0]!, 'month'], [twins[1]!, 'day']] as const) {
    await importDemoData(db.pool);
    await registerDevices(db.pool, { prefix: PREFIX, devices: 12, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
    for (const n of [-3, -2, -1]) await db.pool.query('select fl_ensure_month($1::date, $2)', [`${M(n)}-01`, n === -3 ? 'month' : cut]);
    await generateDeviceData(db.pool, { prefix: PREFIX, devices: 12, count: 1500, months: [M(-2), M(-1), M(0)] });
    await generateDeviceData(db.pool, { prefix: PREFIX, devices: 12, first: 5000, count: 24, months: [M(-5)] });
    await pinInsertTimes(db.pool);
    await db.pool.query('vacuum analyze');
  }
  assert.equal(await pieces(twins[1]!.pool, 'device_records', M(-1)), everyDay(M(-1)));
  assert.ok(await defaultRows(twins[1]!.pool, [M(-5)]) > 0, 'rows wait in the default partitions');
  assert.equal(await tableChecksums(twins[1]!.pool), await tableChecksums(twins[0]!.pool), 'the twins hold the same rows');

  const apps = await Promise.all(twins.map(async (db) => {
    const app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, now: () => NOW, accountCacheMs: 0, readCacheMs: 0 });
    const tokens = new Map<UserName, string>();
    for (const user of ['northAdmin', 'northEast'] as const) tokens.set(user, await login(app, user));
    return { app, tokens };
  }));
  const { rows: [one] } = await twins[0]!.pool.query<{ imei: string }>(`select d."IMEINumber" as imei from device_information d join group_device_links g on g."DeviceID" = d."DeviceID"
    where g."GroupID" = 'north-east' and d."IMEINumber" like $1 || '%' order by 1 limit 1`, [PREFIX]);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
  // A week across the day-cut months' edge, and another inside one of them.
  const weeks = [`from=${day(monthBounds(M(-1)).fromMs - 3 * DAY_MS)}&to=${day(monthBounds(M(-1)).fromMs + 3 * DAY_MS)}`,
    `from=${day(monthBounds(M(-1)).fromMs + 10 * DAY_MS)}&to=${day(monthBounds(M(-1)).fromMs + 16 * DAY_MS)}`];
  const routes: { path: string; sortBy: string; keyset: boolean }[] = [
    { path: '/device-records/data-log', sortBy: 'date', keyset: true },
    { path: `/device-records/device-information/data-log/${one!.imei}`, sortBy: 'date', keyset: true },
    { path: `/device-records/device-information/events/${one!.imei}`, sortBy: 'EventTimestamp', keyset: false },
    { path: `/device-records/device-information/load-history/${one!.imei}`, sortBy: 'PacketTimestamp', keyset: false },
    { path: '/device-records/critical-data', sortBy: 'EventTimestamp', keyset: true },
  ];
  let compared = 0;
  const same = async (user: UserName, url: string): Promise<{ next?: string | null; data: unknown[] }> => {
    const [a, b] = await Promise.all(apps.map(async ({ app, tokens }) => {
      const res = await app.request(url, { headers: { authorization: `Bearer ${tokens.get(user)}` } });
      return `${res.status} ${await res.text()}`;
    }));
    assert.ok(a!.startsWith('200 '), `${user} ${url}: ${a!.slice(0, 300)}`);
    // A total past COUNT_CAP is the planner's estimate (endpoint.ts cappedTotal), read from each partition's statistics.
    const exact = (body: string) => body.replace(/"total":\d+,"totalIsEstimate":true/, '"total":"estimated","totalIsEstimate":true');
    assert.fixture(exact(b!), exact(a!), `${user} ${url}: the day cut's answer`);
    compared++;
    return JSON.parse(a!.slice(4)) as { next?: string | null; data: unknown[] };
  };
  for (const user of ['northAdmin', 'northEast'] as const) {
    for (const r of routes) {
      const forms = ['limit=7', 'limit=7&page=4', 'limit=50&page=2', `limit=7&sortBy=${encodeURIComponent(JSON.stringify({ field: r.sortBy, order: 'asc' }))}`, ...weeks.map((w) => `limit=7&${w}`)];
      for (const form of forms) await same(user, `${r.path}?${form}`);
      if (!r.keyset) continue;
      // Keyset pages of the whole history and of a week, followed to the end (the default partition's rows last).
      for (const base of ['limit=50', `limit=20&${weeks[0]}`]) {
        let page = await same(user, `${r.path}?${base}`);
        let pages = 1;
        while (page.next && pages < 200) {
          page = await same(user, `${r.path}?${base}&after=${encodeURIComponent(page.next)}`);
          pages++;
        }
        assert.is(page.next ?? null, null, `${user} ${r.path} ${base}: followed to the end`);
      }
    }
  }
  assert.ok(compared > 100, `pages compared: ${compared}`);
  console.log(`  ${compared} pages answered alike at the month and the day cut`);
});

/** A maintenance run in a child process at `nowMs` with `cut`, armed to die at `seam`; it must die there. */
function runKilled(db: TestDatabase, nowMs: number, cut: Granularity, seam: Seam): void {
  const child = spawnSync(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE_URL: db.url, NOW_MS: String(nowMs), PARTITION_GRANULARITY: cut, ARCHIVE_DIR: archiveDir(), LOG_LEVEL: 'warn', FAULTLINE_FAILPOINTS: `${seam}=exit` },
    encoding: 'utf8', timeout: 180_000,
  });
  assert.is(child.signal, 'SIGKILL', `the maintenance run died by SIGKILL\n${child.stdout}\n${child.stderr}`);
  assert.match(child.stderr, `failpoint ${seam}: exit`, 'at the seam');
  tally.faultsInjected++;
}

test('killed between the steps of a change of cut: the next run completes it, no gap, no overlap', async () => {
  const db = await database('cut-kill');
  const dir = archiveDir();
  // Killed after the new cut is recorded, before any month is made at it: nothing new yet; the next run makes them.
  runKilled(db, midOf(2), 'day', 'storage.cut-recorded');
  assert.is(await partitionCut(db.pool), 'day');
  for (const n of [4, 5]) assert.equal(await pieces(db.pool, 'device_records', M(n)), [], `${M(n)} not made before the kill`);
  await maintainStorage(db.pool, dir, midOf(2), 'day');
  for (const table of TABLES) for (const n of [4, 5]) assert.equal(await pieces(db.pool, table, M(n)), everyDay(M(n)), `${table} ${M(n)}`);

  // Killed after the first new month of a change to week: that month is whole at its cut, the next is not begun.
  runKilled(db, midOf(4), 'week', 'storage.month-created');
  for (const table of TABLES) {
    assert.equal(await pieces(db.pool, table, M(6)), weeks(M(6)), `${table}: the month made before the kill is complete`);
    assert.equal(await pieces(db.pool, table, M(7)), [], `${table}: the month after is not begun`);
  }
  await maintainStorage(db.pool, dir, midOf(4), 'week');
  for (const table of TABLES) assert.equal(await pieces(db.pool, table, M(7)), weeks(M(7)));
  await assertContiguous(db.pool, M(0), M(7));
  assert.is(await partitionCut(db.pool), 'week');
});

test.run();
