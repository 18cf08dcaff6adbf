// The lock order of the check-in clocks (docs/decisions.md#lock-order-under-a-backlog), on the real database:
// notify's transaction locks its devices' checkin_clock rows in key order (alarms/raise.ts advanceClocks), the
// communication-lost clock scan (alarms/clock.ts) used to lock every due row in the order its plan met them.
// Under a backlog the two met: notify held A and wanted B, the scan held B and wanted A, and PostgreSQL killed
// one of them ("deadlock detected"; the batch or the alarm round was retried). Here the same two transactions
// are interleaved by hand, step by step, so the old order deadlocks every time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { applyCheckInAlarmsIn } from '../../../alarms/raise.js';
import { scanCommunicationLost } from '../../../alarms/clock.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { COMMUNICATION_LOST } from '../../../domain/alarm-kinds.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { importFixture } from '../../../support/checkins.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';

const test = suite('lock order of the check-in clocks');
// Two of north's devices: B from the demo data, A added after it with a lower number. Notify locks A's clock
// before B's (key order); the scan meets B first (its plan walks north's devices in the order they were added).
const A = '860999999999999';
const B = '861000000000100';
const LIMITS = { floorS: 300, ceilingS: 26 * 3600 };
const HOUR = 3_600_000;
const tally: Tally = emptyTally();
let db: TestDatabase;

const checkIn = (imei: string, atMs: number): CheckInAlarms => ({
  IMEINumber: imei, OrganizationID: 'north', PowerLineID: null, deviceName: null, date: new Date(atMs).toISOString(), code: 0,
  transition: null, modelChange: null,
});

/** Both devices last heard three days before `nowMs`: both are due. B's row is written first, so a scan in heap order meets B first. */
async function silentSince(nowMs: number): Promise<void> {
  await db.pool.query('delete from checkin_clock');
  await db.pool.query(`delete from alarm_changes; delete from alarms`);
  for (const imei of [B, A]) {
    await db.pool.query(`insert into checkin_clock ("IMEINumber", last_date, intervals, expected_interval_s) values ($1, $2, '{}', null)`, [imei, new Date(nowMs - 72 * HOUR)]);
  }
}

/** The scan's statement waits for a row lock right now. */
async function scanWaiting(): Promise<boolean> {
  const { rows: [row] } = await db.pool.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%with due as%'`);
  return row!.n > 0;
}

const openLost = async () => (await db.pool.query<{ imei: string }>(
  'select "IMEINumber" as imei from alarms where kind = $1 and cleared_at is null order by 1', [COMMUNICATION_LOST])).rows.map((r) => r.imei);
const clockOf = async (imei: string) => (await db.pool.query<{ last_date: Date }>(
  'select last_date from checkin_clock where "IMEINumber" = $1', [imei])).rows[0]!.last_date.getTime();

test.before(async () => {
  db = await createTestDatabase('alarm_lock_order');
  await importDemoData(db.pool);
  const file = importFixture() as { devices: Record<string, unknown>[] };
  const device = { ...file.devices.find((d) => d.IMEINumber === B)!, IMEINumber: A, groups: [] };
  await importReferenceData(db.pool, { devices: [device] }, { keyring: testKeyring() });
});
test.after(async () => {
  reportTally('lock order of the check-in clocks', tally);
  await db?.drop();
});

/** What a step ended with: its result, or the SQLSTATE and message of its error. */
type Outcome<T> = { ok: T } | { code: string; message: string };
const outcome = <T>(p: Promise<T>): Promise<Outcome<T>> =>
  p.then((ok) => ({ ok }), (err: pg.DatabaseError) => ({ code: err.code ?? '?', message: err.message }));

test('notify locking A then B while the scan runs: no deadlock, both check-ins stored, no silence left open', async () => {
  const T = Date.now();
  await silentSince(T);
  const notify = await db.pool.connect();
  try {
    await notify.query('begin');
    // Step 1: notify's transaction has locked the first of its keys (A).
    await applyCheckInAlarmsIn(notify, [checkIn(A, T)], T);
    // Step 2: the clock scan runs while notify holds A; it finishes, or it waits for a row lock.
    let scanDone = false;
    const scan = outcome(scanCommunicationLost(db.pool, LIMITS, T)).finally(() => { scanDone = true; });
    await waitFor('the scan finished or waiting for a row lock', async () => scanDone || (await scanWaiting()));
    // Step 3: notify locks its next key (B) and commits.
    tally.faultsInjected++;
    const notifyFailed = await outcome(applyCheckInAlarmsIn(notify, [checkIn(B, T)], T).then(() => notify.query('commit')).then(() => undefined));
    if ('code' in notifyFailed) await notify.query('rollback');
    const scanned = await scan;
    assert.not.ok('code' in scanned && scanned.code === '40P01', `the scan deadlocked: ${JSON.stringify(scanned)}`);
    assert.not.ok('code' in notifyFailed, `notify failed: ${JSON.stringify(notifyFailed)}`);
    assert.ok('ok' in scanned, `the scan failed: ${JSON.stringify(scanned)}`);
  } finally {
    notify.release();
  }
  // Nothing lost: both check-ins advanced their clocks, and a device that spoke has no open silence.
  assert.equal([await clockOf(A), await clockOf(B)], [T, T]);
  assert.equal(await openLost(), []);
  assert.equal(await scanCommunicationLost(db.pool, LIMITS, T), [], 'nothing is due once both spoke');
});

test('a device whose check-in is under way is left to the next scan, which raises it if that check-in never commits', async () => {
  const T = Date.now();
  await silentSince(T);
  const notify = await db.pool.connect();
  try {
    await notify.query('begin');
    await applyCheckInAlarmsIn(notify, [checkIn(A, T)], T);
    let scanDone = false;
    const scan = scanCommunicationLost(db.pool, LIMITS, T).finally(() => { scanDone = true; });
    await waitFor('the scan finished or waiting for a row lock', async () => scanDone || (await scanWaiting()));
    // The check-in's transaction fails (a crash, a refused batch): A is still silent.
    await notify.query('rollback');
    await scan;
  } finally {
    notify.release();
  }
  await scanCommunicationLost(db.pool, LIMITS, T + 1_000);
  assert.equal(await openLost(), [A, B], 'both silences raised, A by the next scan at the latest');
});

test.run();
