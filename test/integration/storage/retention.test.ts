// Retention with archive on real PostgreSQL (storage/retention.ts, storage/archive.ts): per organisation,
// archived to Parquet, verified, then deleted (one organisation's share) or dropped (a whole month);
// --dry-run changes nothing; one process at a time; `archive restore` puts back exactly what was removed; the
// daily run's metrics (docs/monitoring.md#retention-and-archive) count failed steps and the last complete run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { verifyArchiveFile } from '../../../storage/archive-file.js';
import { restoreFile } from '../../../storage/archive.js';
import { timePartitions } from '../../../storage/partitions.js';
import { runRetention } from '../../../storage/retention.js';
import { maintainStorage } from '../../../storage/maintenance.js';
import { storageMetrics } from '../../../storage/metrics.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices, tableChecksums } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { assertMonthsCounted } from '../../helpers/critical-months.js';
import { assertDevicesCounted } from '../../helpers/device-counts.js';
import { assertNewestCurrentsKept, assertNewestEventsKept } from '../../helpers/newest-rows.js';

const test = suite('retention with archive (real Postgres)');
const root = new URL('../../../', import.meta.url).pathname;
let db: TestDatabase;
let archiveDir: string;
let initial: Awaited<ReturnType<typeof tableChecksums>>;
const NOW = Date.now();
// 10 months of data up to the current one; keeping 6 months expires the oldest 3 (months -9 .. -7).
const MONTHS = Array.from({ length: 10 }, (_, i) => addMonths(monthOfMs(NOW), i - 9));
const EXPIRED = MONTHS.slice(0, 3);

const faultline = (...args: string[]) => promisify(execFile)(process.execPath, ['bin/faultline.js', ...args], {
  cwd: root, env: { ...process.env, DATABASE_URL: db.url, ARCHIVE_DIR: archiveDir, LOG_LEVEL: 'warn', FAULTLINE_SECRET_KEYS: `test:${Buffer.alloc(32, 3).toString('base64')}` },
});
const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(`select count(*) as n from ${sql}`)).rows[0]!.n);
const orgRows = (table: string, org: string, month: string, column = 'date') =>
  count(`${table} t join device_information d on d."IMEINumber" = t."IMEINumber" where d."OrganizationID" = '${org}' and to_char(t."${column}" at time zone 'UTC', 'YYYY-MM') = '${month}'`);

test.before(async () => {
  db = await createTestDatabase('retention');
  archiveDir = mkdtempSync(join(tmpdir(), 'faultline-archive-'));
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: '8660000', devices: 20, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await registerDevices(db.pool, { prefix: '8670000', devices: 20, org: 'south', powerLines: ['south-F12', 'south-F7'], groups: ['south-east', 'south-west'] });
  for (const m of MONTHS) await db.pool.query('select fl_ensure_month($1::date)', [`${m}-01`]);
  await generateDeviceData(db.pool, { prefix: '8660000', devices: 20, count: 2000, months: MONTHS });
  await generateDeviceData(db.pool, { prefix: '8670000', devices: 20, first: 10_000, count: 2000, months: MONTHS });
  initial = await tableChecksums(db.pool);
});
test.after(async () => {
  await db.drop();
  rmSync(archiveDir, { recursive: true, force: true });
});

test('every organisation keeps everything by default: nothing to do', async () => {
  const report = await runRetention(db.pool, { archiveDir, now: NOW });
  assert.equal([report.skipped, report.steps.length, report.failed], [false, 0, []]);
});

test('--dry-run (the command) lists what would go and changes nothing', async () => {
  await faultline('retention', 'set', 'north', '6');
  const { stdout } = await faultline('retention', 'run', '--dry-run');
  assert.match(stdout, /dry run/);
  assert.match(stdout, new RegExp(`delete device_records ${EXPIRED[0]} \\(north\\) \\d+ rows`));
  assert.match(stdout, /would do: 12 step\(s\), 0 failed/);
  assert.equal(await tableChecksums(db.pool), initial);
  assert.not.ok(existsSync(join(archiveDir, 'device_records')));
});

test('one organisation expires months: its rows are archived per table and month, verified, then deleted; the other keeps its own', async () => {
  const southBefore = await orgRows('device_records', 'south', EXPIRED[0]!);
  const lines: string[] = [];
  const report = await runRetention(db.pool, { archiveDir, now: NOW, progress: (l) => lines.push(l) });
  assert.equal(report.failed, []);
  assert.is(report.steps.length, 12, '4 tables x 3 months');
  assert.ok(report.steps.every((s) => s.action === 'delete' && s.org === 'north' && s.file && existsSync(s.file)));
  assert.ok(lines.some((l) => /verified \(sha256/.test(l)), lines.join('\n'));
  for (const month of EXPIRED) assert.is(await orgRows('device_records', 'north', month), 0, month);
  assert.is(await orgRows('device_records', 'north', MONTHS[3]!), initial.device_records!.rows / 2 / 10, 'the first kept month stays');
  assert.is(await orgRows('device_records', 'south', EXPIRED[0]!), southBefore);
  // The counters followed the deletes (statement triggers): total equals the rows stored.
  assert.is(Number((await db.pool.query(`select sum(records) as n from device_read_counts`)).rows[0].n), await count('device_records'));
  await assertMonthsCounted(db.pool, 'after one organisation\'s delete');
  await assertDevicesCounted(db.pool, 'after one organisation\'s delete');
  await assertNewestCurrentsKept(db.pool, 'after one organisation\'s delete');
  await assertNewestEventsKept(db.pool, 'after one organisation\'s delete');
  assert.is(await count('critical_event_months where events <= 0'), 0, 'no row of migration 0051\'s months is left without events');
  // What the files hold is what the catalogue says.
  const { rows } = await db.pool.query<{ file: string; row_count: number; checksum: string }>('select file, row_count, checksum from storage_archives');
  assert.is(rows.length, 12);
  for (const r of rows) assert.equal(await verifyArchiveFile(r.file), { rows: r.row_count, checksum: r.checksum });
});

test('when every organisation has expired a month, its partitions are archived whole and dropped', async () => {
  await db.pool.query(`update organizations set "RetentionMonths" = 6`);
  const report = await runRetention(db.pool, { archiveDir, now: NOW });
  assert.equal(report.failed, []);
  assert.is(report.steps.length, 12);
  assert.ok(report.steps.every((s) => s.action === 'drop' && s.org === null));
  const left = new Set((await timePartitions(db.pool)).map((p) => p.month));
  for (const m of EXPIRED) assert.not.ok(left.has(m), `${m} dropped`);
  assert.is(Number((await db.pool.query(`select sum(records) as n from device_read_counts`)).rows[0].n), await count('device_records'));
  await assertMonthsCounted(db.pool, 'after the drop');
  await assertDevicesCounted(db.pool, 'after the drop');
  await assertNewestCurrentsKept(db.pool, 'after the drop');
  await assertNewestEventsKept(db.pool, 'after the drop');
  // North's rows of the expired months, counted down to 0 by its delete above, went with the months too.
  assert.is(await count(`critical_event_months where source <> 'model_change' and to_char(month, 'YYYY-MM') = any(array['${EXPIRED.join("', '")}'])`), 0, 'the dropped months left no row');
  assert.is(Number((await db.pool.query(`select sum(critical_events) as n from device_read_counts`)).rows[0].n),
    await count(`(select "EventType" from event_records union all select "EventType" from dm1_event_records) e where "EventType" in ('PFault', 'TFault', 'SOTF', 'Fault Like', 'Fault <50', 'Overcurrent', 'FAULT_INITIAL')`)
      + await count('model_change_alerts'));
  const again = await runRetention(db.pool, { archiveDir, now: NOW });
  assert.equal(again.steps, [], 'a second run finds nothing more');
});

test('only one process runs retention at a time: the other skips', async () => {
  const holder = await db.pool.connect();
  try {
    await holder.query('select pg_advisory_lock($1)', [0x666c7274]);
    const report = await runRetention(db.pool, { archiveDir, now: NOW });
    assert.is(report.skipped, true);
  } finally {
    await holder.query('select pg_advisory_unlock($1)', [0x666c7274]);
    holder.release();
  }
});

test('archive restore (the command) loads every archived file back: the tables are exactly as before retention', async () => {
  const { rows } = await db.pool.query<{ file: string }>('select file from storage_archives order by id');
  const { stdout } = await faultline('archive', 'restore', ...rows.map((r) => r.file));
  assert.match(stdout, /rows restored/);
  assert.equal(await tableChecksums(db.pool), initial);
  await assertMonthsCounted(db.pool, 'after the restore');
  await assertDevicesCounted(db.pool, 'after the restore');
  await assertNewestCurrentsKept(db.pool, 'after the restore');
  await assertNewestEventsKept(db.pool, 'after the restore');
  // Restoring again adds nothing.
  const twice = await restoreFile(db.pool, rows[0]!.file);
  assert.is(twice.inserted, 0);
  assert.ok(twice.rows > 0);
});

test('the daily run (as `start` runs it) counts failed steps on /metrics, and sets the last success only when every step was done', async () => {
  const value = async (m: { get(): Promise<{ values: { value: number }[] }> }) => (await m.get()).values[0]?.value ?? 0;
  // The restore above brought north's expired months back, so retention has steps to do again.
  storageMetrics.retentionLastSuccess.set(0);
  const failedBefore = await value(storageMetrics.retentionFailedSteps);
  const notADirectory = join(archiveDir, 'not-a-directory');
  writeFileSync(notADirectory, '');
  await maintainStorage(db.pool, notADirectory);
  assert.ok(await value(storageMetrics.retentionFailedSteps) > failedBefore, 'archive steps that cannot write are counted');
  assert.is(await value(storageMetrics.retentionLastSuccess), 0, 'a run with failed steps is no success');
  assert.is(await orgRows('device_records', 'north', EXPIRED[0]!) > 0, true, 'nothing removed without its archive');
  const fresh = mkdtempSync(join(tmpdir(), 'faultline-archive-'));
  try {
    await maintainStorage(db.pool, fresh);
    assert.ok(Math.abs(await value(storageMetrics.retentionLastSuccess) - Date.now() / 1000) < 600, 'a complete run sets the last success');
    assert.is(await orgRows('device_records', 'north', EXPIRED[0]!), 0);
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

test.run();
