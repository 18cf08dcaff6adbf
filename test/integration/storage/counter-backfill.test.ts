// Migration 0053's backfill of the per-device event and current counters on real PostgreSQL, held open as a
// live upgrade would be in the middle of it: a read of the counters (every device list's reach check, the
// organisation's list totals) goes on meanwhile, and once it commits every device's counters are what its rows
// count (docs/decisions.md#a-devices-lists-total-from-its-counters). With the columns' ALTER in the backfill's
// transaction, the read waited for the whole count.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { assertDevicesCounted } from '../../helpers/device-counts.js';

const test = suite('migration 0053 under readers (real Postgres)');
const BACKFILL = readFileSync(fileURLToPath(new URL('../../../schemas/migrations/0053_device_event_current_counts.sql', import.meta.url)), 'utf8');
let db: TestDatabase;

test.before(async () => {
  db = await createTestDatabase('counter_backfill', { upTo: '0052' });
  await importDemoData(db.pool);
  await registerDevices(db.pool, { prefix: '8694000', devices: 3, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: '8694000', devices: 3, count: 90, months: [addMonths(monthOfMs(Date.now()), -1)] });
});
test.after(async () => { await db?.drop(); });

test('while the backfill is open, the counters can be read; after it, they hold what the tables hold', async () => {
  const upgrade = await db.pool.connect();
  const reader = await db.pool.connect();
  try {
    await upgrade.query('begin');
    await upgrade.query(BACKFILL);
    // A reader that would wait is refused after 1 s instead, so the test fails rather than hangs.
    await reader.query(`set lock_timeout = '1s'`);
    const { rows } = await reader.query<{ n: string }>('select count(*) as n from device_read_counts where records > 0');
    assert.is(Number(rows[0]!.n), 3, 'the reader sees the counters as they were before the backfill');
    await upgrade.query('commit');
  } finally {
    await upgrade.query('rollback').catch(() => {});
    upgrade.release();
    reader.release();
  }
  await assertDevicesCounted(db.pool, 'after the backfill committed');
});

test.run();
