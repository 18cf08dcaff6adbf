// Resync (issue 21 point 5): the fixture walk through the real stages fills device_records and the outbox; the
// delivery worker sends to the zeep OMS (official OA_Server WSDL). On request (`resyncIntegration`, what
// `faultline outbox resync` runs) every device whose state the OMS lacks is queued once, in order per device,
// and nothing already delivered is queued again; after an outage (deliveries failing, then succeeding) an
// integration with resyncAfterOutage resends the state that died in the outbox during the outage.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startDeliveryWorker, type DeliveryWorker } from '../../../multispeak/delivery/index.js';
import { alreadyHas, resyncIntegration } from '../../../multispeak/delivery/resync.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { walkFixturesInProcess } from '../../../support/pipeline.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { ensurePython } from '../../multispeak/python.js';
import { addIntegration } from './integrations.js';
import { startOms, type Oms, type Received } from './oms.js';

const test = suite('multispeak resync');
let db: TestDatabase;
let oms: Oms;
const ID = 'r-status';

interface Row { id: number; IMEINumber: string; dedup_key: string; payload: { ActualOngoingFault: number; date: string }; delivered_at: Date | null; dead_at: Date | null }
const rows = async () => (await db.pool.query<Row>('select id, "IMEINumber", dedup_key, payload, delivered_at, dead_at from outbox where integration_id = $1 order by id', [ID])).rows;
const latest = async () => new Map((await db.pool.query<{ IMEINumber: string; ActualOngoingFault: number }>(
  `select l."IMEINumber", r."ActualOngoingFault" from device_latest l join device_records r using ("RecordID")
     join device_information d on d."IMEINumber" = l."IMEINumber" where d."OrganizationID" = 'north' and d.deleted_at is null`)).rows.map((r) => [r.IMEINumber, r.ActualOngoingFault]));
const worker = () => startDeliveryWorker({ pool: db.pool, keyring: testKeyring(), pollMs: 20, backoff: { initialMs: 20, maxMs: 100 }, integrationsTtlMs: 0 });
async function settle(): Promise<void> {
  await waitFor('no pending outbox row', async () => (await rows()).every((r) => r.delivered_at || r.dead_at), { timeoutMs: 60_000, intervalMs: 50 });
}
const statusOf = (r: Received) => ((r.body.scadaStatus as Record<string, unknown>[])[0] ?? r.body.scadaStatus) as Record<string, unknown>;

test.before(async () => {
  await ensurePython();
  db = await createTestDatabase('msresync');
  await importDemoData(db.pool);
  oms = await startOms();
  await db.pool.query(`update integrations set enabled = false where kind = 'multispeak'`);
  await addIntegration(db.pool, { id: ID, operation: 'SCADAStatusChangedNotificationByPointID', version: '4.1', endpoint: oms.url, settings: { resyncAfterOutage: true, maxAgeHours: 1 / 3600 } });
  await walkFixturesInProcess(db.pool);
});
test.after(async () => {
  await oms?.stop();
  await db?.drop();
});

test('the rule: same fault code is the same state for status notifications; check-ins also need the newest check-in', () => {
  const date = new Date('2026-01-02T00:00:00Z');
  assert.ok(alreadyHas({ date, ActualOngoingFault: 2, last_fault: 2, last_date: '2026-01-01T00:00:00Z' }, false));
  assert.not.ok(alreadyHas({ date, ActualOngoingFault: 2, last_fault: 2, last_date: '2026-01-01T00:00:00Z' }, true));
  assert.ok(alreadyHas({ date, ActualOngoingFault: 2, last_fault: 2, last_date: '2026-01-02T00:00:00Z' }, true));
  assert.not.ok(alreadyHas({ date, ActualOngoingFault: 0, last_fault: 2, last_date: '2026-01-03T00:00:00Z' }, false));
  assert.not.ok(alreadyHas({ date, ActualOngoingFault: 0, last_fault: null, last_date: null }, false));
});

test('on request: every device whose state the OMS lacks, once, in order per device; a second resync queues nothing', async () => {
  const w = worker();
  try {
    await settle();
    const before = await rows();
    assert.ok(before.length > 0 && before.every((r) => r.delivered_at), 'the fixture walk delivered');
    const state = await latest();
    const notified = new Set(before.map((r) => r.IMEINumber));
    const r = await resyncIntegration(db.pool, ID);
    assert.is(r.devices, state.size);
    const queued = (await rows()).filter((x) => x.dedup_key.startsWith('resync:'));
    assert.is(queued.length, r.queued);
    // Devices never notified are queued; a notified device only when its newest notification's code differs.
    for (const [imei, fault] of state) {
      const last = before.filter((x) => x.IMEINumber === imei).at(-1);
      const expected = !last || last.payload.ActualOngoingFault !== fault;
      assert.is(queued.some((q) => q.IMEINumber === imei), expected, imei);
    }
    assert.ok(queued.length > 0 && queued.length < state.size, `${queued.length} of ${state.size}: some devices need it, some not`);
    assert.ok([...state.keys()].some((imei) => !notified.has(imei)), 'some devices were never notified');
    assert.is((await resyncIntegration(db.pool, ID)).queued, 0, 'a second resync while the first is pending');
    await settle();
    assert.is((await resyncIntegration(db.pool, ID)).queued, 0, 'nothing delivered is queued again');
    const all = await resyncIntegration(db.pool, ID, { all: true });
    assert.is(all.queued, state.size, '--all queues every device');
    await settle();
    const received = await oms.received();
    const outbox = await rows();
    const byId = new Map(outbox.map((x) => [`faultline-${ID}-${x.id}`, x]));
    const seen = new Map<string, number>();
    for (const got of received) {
      const row = byId.get(got.header.MessageID!)!;
      assert.ok(row, got.header.MessageID);
      assert.equal(got.schemaErrors, []);
      assert.ok((seen.get(row.IMEINumber) ?? 0) < row.id, `${row.IMEINumber}: row ${row.id} after ${seen.get(row.IMEINumber)}`);
      seen.set(row.IMEINumber, row.id);
      if (row.dedup_key.startsWith('resync:')) assert.is(statusOf(got).status, state.get(row.IMEINumber)! > 0 ? 'Open' : 'Closed', `${row.IMEINumber} current state`);
    }
    assert.is(received.length, outbox.length, 'each row received once');
  } finally {
    await w.stop();
  }
});

test('after an outage: the state that died in the outbox is resent once deliveries succeed again, nothing else', async () => {
  const state = await latest();
  const [x, y] = [...state.keys()];
  await oms.mode('500');
  const w: DeliveryWorker = worker();
  try {
    const newFault = state.get(x!)! > 0 ? 0 : 3;
    // x's state changes (its stored record, and the notification notify writes) while the OMS answers 500.
    await db.pool.query(`update device_records set "ActualOngoingFault" = $2 where "RecordID" = (select "RecordID" from device_latest where "IMEINumber" = $1)`, [x, newFault]);
    await db.pool.query(`insert into outbox (integration_id, "IMEINumber", kind, dedup_key, payload)
      select $1, $2, 'status', 'status:outage-test:' || $2, jsonb_set(payload, '{ActualOngoingFault}', to_jsonb($3::int)) from outbox where integration_id = $1 and "IMEINumber" = $2 order by id desc limit 1`, [ID, x, newFault]);
    await waitFor('x given up (maximum age 1 s)', async () => (await rows()).some((r) => r.dead_at && r.IMEINumber === x), { timeoutMs: 20_000, intervalMs: 50 });
    const receivedBefore = (await oms.received()).length;
    const maxBefore = Math.max(...(await rows()).map((r) => r.id));
    await oms.mode('ok');
    // A new notification for y succeeds: the outage is over.
    await db.pool.query(`insert into outbox (integration_id, "IMEINumber", kind, dedup_key, payload)
      select $1, $2, 'status', 'status:after-outage:' || $2, payload from outbox where integration_id = $1 and "IMEINumber" = $2 order by id desc limit 1`, [ID, y]);
    await waitFor('the resync row for x delivered', async () => (await rows()).some((r) => r.id > maxBefore && r.IMEINumber === x && r.delivered_at), { timeoutMs: 20_000, intervalMs: 50 });
    await settle();
    const after = (await rows()).filter((r) => r.id > maxBefore);
    assert.equal(after.map((r) => [r.IMEINumber, r.dedup_key.split(':')[0]]), [[y, 'status'], [x, 'resync']]);
    const got = (await oms.received()).slice(receivedBefore);
    assert.is(got.length, 2);
    assert.is(statusOf(got[1]!).objectID, x);
    assert.is(statusOf(got[1]!).status, newFault > 0 ? 'Open' : 'Closed');
  } finally {
    await w.stop();
  }
});

test.run();
