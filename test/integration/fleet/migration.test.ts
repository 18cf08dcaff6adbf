// Migration 0033 on a database that already holds check-ins: the daily health rows are back-filled from them,
// equal to the recomputation (support/fleet-rollup-truth.ts), and persist goes on folding new check-ins into
// the back-filled rows.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../../db/migrate.js';
import { parseQueueMessage } from '../../../domain/validate-message.js';
import { persistBatch } from '../../../stages/persist/index.js';
import { computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { fleetCheckIns } from '../../../support/fleet-checkins.js';
import { compareRollup } from '../../../support/fleet-rollup-truth.js';
import { REPROCESS_SOURCE } from '../../../plumbing/sources.js';

let db: TestDatabase;
test.before(async () => { db = await createTestDatabase('fleet-migration', { upTo: '0029' }); });
test.after(async () => { await db.drop(); });

const messages = fleetCheckIns({ devices: 12, checkIns: 2400, endMs: Date.now() - 3_600_000 }).messages.map((m) => {
  const parsed = parseQueueMessage(m.body);
  if (!parsed.ok) throw new Error(parsed.reason);
  return computed(parsed.value, { messageId: m.name });
});

test('check-ins stored before the migration are back-filled exactly, and later ones fold into those rows', async () => {
  const half = Math.floor(messages.length / 2);
  // The release before 0033 stored check-ins without a rollup: its rows, written directly.
  for (let i = 0; i < half; i += 400) await persistBatchWithoutHealth(messages.slice(i, Math.min(i + 400, half)));
  const { applied } = await migrate(db.pool);
  assert.ok(applied.includes('0033_fleet_health_days'), JSON.stringify(applied));
  const backFilled = await compareRollup(db.pool);
  assert.is(backFilled.mismatches, 0, JSON.stringify(backFilled.examples));
  assert.ok(backFilled.rollupRows > 0);
  for (let i = half; i < messages.length; i += 400) await persistBatch(db.pool, messages.slice(i, Math.min(i + 400, messages.length)));
  const after = await compareRollup(db.pool);
  assert.is(after.mismatches, 0, JSON.stringify(after.examples));
  assert.ok(after.rollupRows >= backFilled.rollupRows);
});

test('replay --reprocess folds a check-in it stores for the first time, and nothing for one already stored', async () => {
  const before = await compareRollup(db.pool);
  const stored = messages[messages.length - 1]!;
  await persistBatch(db.pool, [{ ...stored, source: REPROCESS_SOURCE }], { reprocess: true });
  assert.equal(await compareRollup(db.pool), before, 'already stored: no day row changes');
  const d = stored.checkIn.device_data;
  const fresh = { ...stored, messageId: 'reprocess-new', source: REPROCESS_SOURCE, checkIn: { ...stored.checkIn, device_data: { ...d, date: new Date(Date.parse(d.date) + 1).toISOString() } } };
  await persistBatch(db.pool, [fresh], { reprocess: true });
  const after = await compareRollup(db.pool);
  assert.is(after.mismatches, 0, JSON.stringify(after.examples));
  const { rows } = await db.pool.query<{ received: number }>(`select received from device_health_days where "IMEINumber" = $1 and day = $2::date`, [d.IMEINumber, d.date.slice(0, 10)]);
  const { rows: truth } = await db.pool.query<{ n: number }>(`select count(*)::integer as n from device_records where "IMEINumber" = $1 and ("date" at time zone 'UTC')::date = $2::date`, [d.IMEINumber, d.date.slice(0, 10)]);
  assert.is(rows[0]!.received, truth[0]!.n);
});

/** The device_records rows persist stores, written without the rollup statement (the schema before 0033 has no table for it). */
async function persistBatchWithoutHealth(batch: ReturnType<typeof computed>[]): Promise<void> {
  for (const m of batch) {
    const d = m.checkIn.device_data;
    await db.pool.query(`insert into device_records ("IMEINumber", "date", version, rssi, "BatteryMCU", "BatteryLED", "BatteryOrLine", "ConnectTime", "Temperature",
        "Tempfault_Reset_Hours", "Permfault_Reset_Hours", "Current_Reset", "Block_Reset", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", source_message_id)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, 0, 0, $14) on conflict do nothing`,
    [d.IMEINumber, d.date, d.version, d.rssi, d.BatteryMCU, d.BatteryLED, d.BatteryOrLine, d.ConnectTime, d.Temperature, d.Tempfault_Reset_Hours,
      d.Permfault_Reset_Hours, d.Current_Reset, d.Block_Reset, m.messageId]);
  }
}

test.run();
