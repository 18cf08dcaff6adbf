// Issue 41: what persist owes notify (pending_effects, docs/decisions.md#effects-exactly-once-across-a-crash) is
// applied once, and a device's records in the order they were stored, even when a restart's recovery and the
// live stage (two processes) reach the same device at the same moment. Real Postgres; the in-process transport
// carries the DNP3 feed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { persistBatch } from '../../../stages/persist/index.js';
import { notifyStage } from '../../../stages/notify/index.js';
import { findDevices } from '../../../stages/enrich/devices.js';
import { localAvroCodec } from '../../../stages/runtime/codec.js';
import { memoryTransport } from '../../../stages/runtime/transport/memory.js';
import type { Transport } from '../../../stages/runtime/transport/transport.js';
import type { PersistedCheckIn } from '../../../schemas/avro/values.js';
import { checkInOf, computed } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';

const test = suite('notify: what persist owes, once and in order (real Postgres)');
let db: TestDatabase;
let transport: Transport;
const IMEI = '861000000000100';

test.before(async () => {
  db = await createTestDatabase('owed');
  await importDemoData(db.pool);
  transport = memoryTransport({ codec: localAvroCodec(), partitions: 1 });
});
test.after(async () => {
  await transport?.close();
  await db?.drop();
});

const rows = async (sql: string) => (await db.pool.query<{ k: string }>(sql)).rows.map((r) => r.k);
const asInput = (value: PersistedCheckIn) => ({ topic: 'fi.persisted.v1', partition: 0, messages: [{ topic: 'fi.persisted.v1', partition: 0, offset: '0', key: IMEI, value, timestamp: Date.now() }] });

test('a fault stored before a crash and its clearing stored after: recovery and the live batch at once apply each once, the fault first', async () => {
  const device = (await findDevices(db.pool, [IMEI])).get(IMEI)!;
  assert.ok(device, 'the demo device is known');
  const fault = computed(checkInOf('002-permanent-fault.json'), { device });
  const d = fault.checkIn.device_data;
  const clearDate = new Date(Date.parse(d.date) + 15 * 60_000).toISOString();
  const clear = computed({ ...fault.checkIn, events: [], device_data: { ...d, date: clearDate, Ongoing_fault: 0 } }, { device, previousActualOngoingFault: 4 });

  // persist stored the fault and the process died before notify; after the restart the clearing is stored too.
  const [faultOut] = await persistBatch(db.pool, [fault]);
  const [clearOut] = await persistBatch(db.pool, [clear]);
  assert.equal(await rows('select "RecordID"::text as k from pending_effects order by 1'), [String(faultOut!.DeviceRecordID), String(clearOut!.DeviceRecordID)], 'both records are owed');

  // The restarted process's recovery and another member's live batch of the clearing, at the same moment.
  const recovering = notifyStage({ pool: db.pool, transport });
  const live = notifyStage({ pool: db.pool, transport });
  await Promise.all([recovering.onAssign!([0]), live.handle(asInput(clearOut!))]);

  const episode = `${IMEI} permanent ${new Date(d.date).toISOString()}`;
  assert.equal(await rows(`select "IMEINumber" || ' ' || kind || ' ' || episode as k from alarms order by id`), [episode], 'one permanent-fault alarm, for the fault');
  assert.equal(await rows('select change as k from alarm_changes order by id'), ['raised', 'cleared'], 'raised, then cleared by the newer record: not the other way round');
  const status = await rows(`select dedup_key as k from outbox where kind = 'status' order by id`);
  assert.ok(status.length > 0 && status.length % 2 === 0, `status rows for both records (${status.join(', ')})`);
  for (let i = 0; i < status.length; i += 2) assert.equal(status.slice(i, i + 2).map((k) => k.split(':').slice(2).join(':')), [new Date(d.date).toISOString(), clearDate], 'the fault before its clearing');
  assert.is((await rows('select count(*)::text as k from pending_effects'))[0], '0', 'nothing owed');

  // Once: the same batch again, and another recovery, change nothing.
  const before = await rows(`select (select count(*) from alarms) || '/' || (select count(*) from alarm_changes) || '/' || (select count(*) from outbox) as k`);
  await live.handle(asInput(clearOut!));
  await live.handle(asInput(faultOut!));
  await recovering.onAssign!([0]);
  assert.equal(await rows(`select (select count(*) from alarms) || '/' || (select count(*) from alarm_changes) || '/' || (select count(*) from outbox) as k`), before, 'a repeat writes nothing');
});

test('a device whose owed effects cannot be applied does not hold back the recovery of the others: theirs are applied, its own stay owed', async () => {
  const imeis = ['861000000000200', '861000000000300'];
  const devices = await findDevices(db.pool, imeis);
  const faults = imeis.map((imei) => {
    const device = devices.get(imei)!;
    assert.ok(device, `${imei} is a demo device`);
    const c = checkInOf('002-permanent-fault.json');
    return computed({ ...c, device_data: { ...c.device_data, IMEINumber: imei } }, { device });
  });
  await persistBatch(db.pool, faults);
  // The first device's row can no longer be read (as after a change that cannot read an older row).
  await db.pool.query(`update pending_effects set message = '{"unreadable":true}' where "IMEINumber" = $1`, [imeis[0]]);

  await notifyStage({ pool: db.pool, transport }).onAssign!([0]);
  assert.equal(await rows('select "IMEINumber" as k from pending_effects order by 1'), [imeis[0]], 'only the unreadable device is still owed');
  assert.equal(await rows(`select "IMEINumber" as k from alarms where kind = 'permanent' and "IMEINumber" = any('{${imeis.join(',')}}') order by 1`), [imeis[1]], 'the other device\'s alarm is raised');
});

test.run();
