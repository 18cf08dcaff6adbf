// persist against real Postgres: COPY + merge writes every table of spec 2.2 to 2.4 once, and a
// re-delivered batch changes nothing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { persistBatch } from '../../../stages/persist/index.js';
import { checkInOf, computed } from '../../../support/checkins.js';
import { createTestDatabase, dumpTables, type TestDatabase } from '../../../support/database.js';

const test = suite('persist stage (real Postgres)');
let db: TestDatabase;
test.before(async () => { db = await createTestDatabase('persist'); });
test.after(async () => { await db.drop(); });

const count = async (table: string) => Number((await db.pool.query(`select count(*) from ${table}`)).rows[0].count);

test('a check-in with events and currents lands in records, events and currents, linked by RecordID', async () => {
  const m = computed(checkInOf('002-permanent-fault.json'));
  const [out] = await persistBatch(db.pool, [m]);
  assert.ok(out && out.ownsRecord, 'this message stored the record');
  assert.equal(out!.storedEventIds, [101]);
  const rec = (await db.pool.query('select * from device_records where "RecordID" = $1', [out!.DeviceRecordID])).rows[0];
  assert.is(rec.IMEINumber, '861000000000100');
  assert.is(rec.ActualOngoingFault, 4);
  assert.is(rec.Ongoing_fault, 4);
  assert.is(rec.CurrentName, 'Pole 1');
  assert.is(rec.date.toISOString(), '2026-11-20T14:05:00.000Z');
  const ev = (await db.pool.query('select * from event_records where "DeviceRecordID" = $1', [out!.DeviceRecordID])).rows;
  assert.is(ev.length, 1);
  assert.is(ev[0].EventType, 'PFault');
  assert.is(ev[0].PacketTimestamp.toISOString(), '2026-11-20T14:05:00.000Z');
  const cur = (await db.pool.query('select * from device_currents where "IMEINumber" = $1', ['861000000000100'])).rows;
  assert.is(cur.length, 1);
  assert.is(cur[0].AverageCurrentH0, 100);
  assert.is(cur[0].AverageCurrentH23, 134.5);
  assert.is(cur[0].CurrentName, 'Pole 1');
});

test('the same batch delivered again changes no table', async () => {
  const before = await dumpTables(db.pool);
  const m = computed(checkInOf('002-permanent-fault.json'));
  const [out] = await persistBatch(db.pool, [m]);
  assert.ok(out!.ownsRecord, 'the same message still owns its record (so notify may repeat, at least once)');
  assert.equal(await dumpTables(db.pool), before);
});

test('a resent check-in from another message stores nothing and does not own the record', async () => {
  const m = computed(checkInOf('003-permanent-fault-resent.json'), { messageId: 'another-message' });
  const [out] = await persistBatch(db.pool, [m]);
  assert.is(out!.ownsRecord, false);
  assert.equal(out!.storedEventIds, []);
  assert.is(await count('device_records'), 1);
  assert.is(await count('event_records'), 1);
});

test('DM1 events go to dm1_event_records with their phase fields', async () => {
  await persistBatch(db.pool, [computed(checkInOf('006-dm1-fault-initial.json'))]);
  const rows = (await db.pool.query('select * from dm1_event_records')).rows;
  assert.is(rows.length, 1);
  assert.is(rows[0].EventType, 'FAULT_INITIAL');
  assert.is(rows[0].PhaseAEvent, 'Fault');
  assert.is(await count(`event_records where "IMEINumber" = '861000000000400'`), 0);
});

test('a Fault <50 shift moves the stored timestamp once and keeps the reported one', async () => {
  const checkIn = checkInOf('007-fault-lt50-then-tfault.json');
  const shift = { EventID: 201, fromTimestamp: '2026-11-20T14:25:00.000Z', toTimestamp: '2026-11-20T14:24:30.000Z' };
  await persistBatch(db.pool, [computed(checkIn, { shifts: [shift] })]);
  // A second, later decision for the same event must not move it again.
  await persistBatch(db.pool, [computed(checkIn, { shifts: [{ ...shift, toTimestamp: '2026-11-20T14:24:00.000Z' }] })]);
  const row = (await db.pool.query(`select * from event_records where "EventID" = 201`)).rows[0];
  assert.is(row.EventTimestamp.toISOString(), '2026-11-20T14:24:30.000Z');
  assert.is(row.ReportedEventTimestamp.toISOString(), '2026-11-20T14:25:00.000Z');
  assert.is(row.TimestampShifted, true);
});

test('two check-ins of one device in one batch: both stored, events in arrival order', async () => {
  const a = checkInOf('009-low-current-before.json');
  const b = checkInOf('010-permanent-after-low-current.json');
  const out = await persistBatch(db.pool, [computed(a), computed(b, { ActualOngoingFault: 11, alert: { oldModel: 'X', newModel: 'FCI-3000' } })]);
  assert.is(out.length, 2);
  assert.ok(out[0]!.DeviceRecordID < out[1]!.DeviceRecordID);
  assert.is(await count(`model_change_alerts where "IMEINumber" = '861000000000000'`), 1);
});

test('a value Postgres cannot store fails the batch; one message alone is then refused, not retried forever', async () => {
  const bad = checkInOf('001-plain-checkin.json');
  bad.device_data.Program = 'nul\u0000byte';
  let error: unknown = null;
  try { await persistBatch(db.pool, [computed(bad)]); } catch (err) { error = err; }
  assert.ok(error, 'Postgres refuses NUL in text');
  const { isRetriableDatabaseError } = await import('../../../db/errors.js');
  assert.is(isRetriableDatabaseError(error), false);
});

test.run();
