// Chattering alarms collapse in the store (docs/decisions.md#hot-spots-and-chattering-alarms): the alarm side of
// the notify stage (alarms/raise.ts) against the real database. A raise within ten minutes (device time) of the
// row's last raise, after it cleared and before anyone acknowledged it, reopens the row; an acknowledged row, a
// raise later than the window, or another kind starts a row of its own; a batch delivered again adds nothing;
// routing gets one raise and one clear however long the row chatters.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { FAULT_CODE_KINDS, kindOfCode } from '../../../domain/alarm-kinds.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';

const MIN = 60_000;
const T = Date.now() - 120 * MIN;
let db: TestDatabase;

function item(imei: string, atMs: number, code: number): CheckInAlarms {
  const kind = kindOfCode(code);
  return { IMEINumber: imei, OrganizationID: 'north', PowerLineID: 'north-F9', deviceName: null, date: new Date(atMs).toISOString(), code, transition: { raise: kind, end: FAULT_CODE_KINDS.filter((k) => k !== kind) }, modelChange: null };
}
const rows = async (imei: string) => (await db.pool.query<{ id: string; kind: string; chatter_count: number; cleared_at: Date | null; changes: string[] }>(
  `select a.id, a.kind, a.chatter_count, a.cleared_at, coalesce((select array_agg(c.change order by c.id) from alarm_changes c where c.alarm_id = a.id), '{}') as changes
     from alarms a where a."IMEINumber" = $1 order by a.id`, [imei])).rows;

test.before(async () => {
  db = await createTestDatabase('alarm_chatter');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
});
test.after(async () => { await db?.drop(); });

test('toggling within the window: one row, its episodes counted, one raise and one clear to route', async () => {
  for (let i = 0; i < 5; i++) {
    await applyCheckInAlarms(db.pool, [item(IMEI.LA1, T + i * 2 * MIN, 2)]);
    await applyCheckInAlarms(db.pool, [item(IMEI.LA1, T + i * 2 * MIN + 30_000, 0)]);
  }
  const [row, ...more] = await rows(IMEI.LA1);
  assert.equal(more, [], 'one row');
  assert.equal([row!.kind, row!.chatter_count, row!.cleared_at !== null], ['temporary', 5, true]);
  assert.equal(row!.changes, ['raised', 'cleared']);
});

test('a batch delivered again, and a late older check-in, add no episode', async () => {
  await applyCheckInAlarms(db.pool, [item(IMEI.LA1, T + 8 * MIN, 2)]);
  await applyCheckInAlarms(db.pool, [item(IMEI.LA1, T + 3 * MIN, 2)]);
  assert.is((await rows(IMEI.LA1))[0]!.chatter_count, 5);
});

test('more than ten minutes after the last raise (device time): a row of its own', async () => {
  await applyCheckInAlarms(db.pool, [item(IMEI.LA1, T + 8 * MIN + 10 * MIN + 1_000, 2)]);
  const all = await rows(IMEI.LA1);
  assert.equal(all.map((r) => r.chatter_count), [5, 1]);
  assert.equal(all[1]!.changes, ['raised']);
});

test('an acknowledged row is not reopened: the acknowledgement stays on the record, the next episode is a new row', async () => {
  await applyCheckInAlarms(db.pool, [item(IMEI.LB1, T, 2)]);
  await applyCheckInAlarms(db.pool, [item(IMEI.LB1, T + MIN, 0)]);
  await db.pool.query(`update alarms set acknowledged_at = now(), acknowledged_by = 'op@north.example' where "IMEINumber" = $1`, [IMEI.LB1]);
  await applyCheckInAlarms(db.pool, [item(IMEI.LB1, T + 2 * MIN, 2)]);
  assert.equal((await rows(IMEI.LB1)).map((r) => r.chatter_count), [1, 1]);
});

test('another kind in between is another alarm: each kind chatters on its own row', async () => {
  await applyCheckInAlarms(db.pool, [item(IMEI.T2, T, 2)]);
  await applyCheckInAlarms(db.pool, [item(IMEI.T2, T + MIN, 4)]);
  await applyCheckInAlarms(db.pool, [item(IMEI.T2, T + 2 * MIN, 2)]);
  await applyCheckInAlarms(db.pool, [item(IMEI.T2, T + 3 * MIN, 4)]);
  const all = await rows(IMEI.T2);
  assert.equal(all.map((r) => [r.kind, r.chatter_count]), [['temporary', 2], ['permanent', 2]]);
  assert.equal(all.find((r) => r.kind === 'permanent')!.cleared_at, null, 'the permanent fault is active again');
});

test.run();
