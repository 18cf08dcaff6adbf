// Alarm states (docs/decisions.md#the-board): acknowledging never clears; a model change ends at the next
// check-in without a change, not at its acknowledgement; a feeder's acknowledgement and shelving stay within the
// caller's reach; shelving takes maintenance alarms for a bounded time. Against the real app and database.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { FAULT_CODE_KINDS, kindOfCode } from '../../../domain/alarm-kinds.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, login, type UserName } from '../api/seeded-api.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';

const MIN = 60_000;
const T = Date.now() - 60 * MIN;
let db: TestDatabase;
let app: ReturnType<typeof createApp>;

function item(imei: string, atMs: number, code: number, modelChange: CheckInAlarms['modelChange'] = null): CheckInAlarms {
  const kind = kindOfCode(code);
  return { IMEINumber: imei, OrganizationID: 'north', PowerLineID: 'north-F9', deviceName: null, date: new Date(atMs).toISOString(), code, transition: { raise: kind, end: FAULT_CODE_KINDS.filter((k) => k !== kind) }, modelChange };
}
const alarmOf = async (imei: string, kind: string) => (await db.pool.query<{ id: string; acknowledged_at: Date | null; cleared_at: Date | null }>(
  'select id, acknowledged_at, cleared_at from alarms where "IMEINumber" = $1 and kind = $2 order by id desc limit 1', [imei, kind])).rows[0]!;
async function post(user: UserName, path: string, body?: unknown): Promise<Response> {
  return app.request(path, { method: 'POST', headers: { authorization: `Bearer ${await login(app, user)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}
async function board(user: UserName): Promise<{ items: { id: number; type: string; state?: string }[]; acknowledged: { id: number }[]; shelved: { IMEINumber: string }[] }> {
  return (await app.request('/api/board', { headers: { authorization: `Bearer ${await login(app, user)}` } })).json() as never;
}

test.before(async () => {
  db = await createTestDatabase('alarm_states');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
  app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null });
});
test.after(async () => { await db?.drop(); });

test('a model change is acknowledged without clearing, and ends at the next check-in that brings no change', async () => {
  await applyCheckInAlarms(db.pool, [item(IMEI.H, T, 0)], T);
  await applyCheckInAlarms(db.pool, [item(IMEI.H, T + MIN, 0, { oldModel: 'FCI-2000', newModel: 'FCI-3000' })], T + MIN);
  const raised = await alarmOf(IMEI.H, 'model-change');
  const res = await post('northAdmin', `/api/alarms/${raised.id}/acknowledge`);
  assert.is(res.status, 200);
  const acked = await alarmOf(IMEI.H, 'model-change');
  assert.ok(acked.acknowledged_at !== null && acked.cleared_at === null, 'acknowledged, still active');
  const listed = (await (await app.request('/api/alarms?state=acknowledged', { headers: { authorization: `Bearer ${await login(app, 'northAdmin')}` } })).json()) as { data: { id: number }[] };
  assert.ok(listed.data.some((a) => a.id === Number(raised.id)), '"Acknowledged (not cleared)" lists it');
  assert.ok((await board('northAdmin')).acknowledged.some((a) => a.id === Number(raised.id)));
  await applyCheckInAlarms(db.pool, [item(IMEI.H, T + 2 * MIN, 0)], T + 2 * MIN);
  assert.ok((await alarmOf(IMEI.H, 'model-change')).cleared_at !== null, 'the next check-in ended it');
  const changes = (await db.pool.query<{ change: string }>('select change from alarm_changes where alarm_id = $1 order by id', [raised.id])).rows.map((r) => r.change);
  assert.equal(changes, ['raised', 'cleared'], 'routed like every alarm');
});

test('acknowledging a whole feeder: only the caller\'s reach, never cleared; the board moves them to acknowledged', async () => {
  // T1 is in north-east (the group user's), T2 in north-west; both on north-F9.
  await applyCheckInAlarms(db.pool, [item(IMEI.T1, T, 4), item(IMEI.T2, T, 4)], T);
  const res = await post('northEast', '/api/board/feeders/north-F9/acknowledge', {});
  assert.is(res.status, 200);
  const t1 = await alarmOf(IMEI.T1, 'permanent');
  assert.equal((await res.json() as { acknowledged: number[] }).acknowledged, [Number(t1.id)]);
  assert.ok(t1.acknowledged_at !== null && t1.cleared_at === null);
  assert.is((await alarmOf(IMEI.T2, 'permanent')).acknowledged_at, null, 'out of the group user\'s reach: untouched');
  const admin = await board('northAdmin');
  assert.ok(admin.acknowledged.some((a) => a.id === Number(t1.id)));
  assert.ok(admin.items.some((a) => a.type === 'alarm' && a.state === 'unacknowledged-active'));
  assert.is((await post('northAdmin', '/api/board/feeders/north-F9/acknowledge', { class: 'maintenance' })).status, 200);
  assert.is((await alarmOf(IMEI.T2, 'permanent')).acknowledged_at, null, 'a class filter keeps the other class');
  assert.is((await post('northAdmin', '/api/board/feeders/north-F9/acknowledge', { class: 'other' })).status, 400);
  assert.is((await post('northAdmin', '/api/board/feeders/north-F9/acknowledge', { class: '' })).status, 400, 'an empty class is not every class');
  assert.is((await post('northAdmin', '/api/board/feeders/north-F9/acknowledge', { everything: true })).status, 400);
});

test('shelving: maintenance alarms only, 15 minutes to a week, within reach; the board hides them and lists the shelf', async () => {
  await applyCheckInAlarms(db.pool, [item(IMEI.T2, T + MIN, 402), item(IMEI.LA1, T + MIN, 402)], T + MIN);
  const west = await alarmOf(IMEI.T2, 'low-battery');
  const east = await alarmOf(IMEI.LA1, 'low-battery');
  assert.is((await post('northEast', `/api/alarms/${west.id}/shelve`, { minutes: 60 })).status, 404, 'out of reach');
  assert.is((await post('northEast', `/api/alarms/${east.id}/shelve`, { minutes: 10 })).status, 400);
  assert.is((await post('northEast', `/api/alarms/${east.id}/shelve`, {})).status, 400);
  assert.is((await post('northEast', `/api/alarms/${(await alarmOf(IMEI.T1, 'permanent')).id}/shelve`, { minutes: 60 })).status, 409);
  assert.is((await post('northEast', `/api/alarms/${east.id}/shelve`, { minutes: 60 })).status, 200);
  const b = await board('northEast');
  assert.not.ok(b.items.some((a) => a.id === Number(east.id)), 'shelved: off the board');
  assert.equal(b.shelved.map((s) => s.IMEINumber), [IMEI.LA1]);
  assert.ok((await board('northAdmin')).items.some((a) => a.id === Number(west.id)), 'another point is not shelved');
  assert.is((await post('northEast', `/api/alarms/${east.id}/unshelve`)).status, 200);
  assert.ok((await board('northEast')).items.some((a) => a.id === Number(east.id)), 'unshelved: back');
});

test('one batch keeps each device\'s order: a device acting twice goes one by one, devices acting once in one statement', async () => {
  // LB1 twice (permanent, then low battery a minute later) and LA2 once: the later check-in ends the earlier raise.
  await applyCheckInAlarms(db.pool, [item(IMEI.LB1, T + 2 * MIN, 4), item(IMEI.LA2, T + 2 * MIN, 4), item(IMEI.LB1, T + 3 * MIN, 402)], T + 3 * MIN);
  assert.ok((await alarmOf(IMEI.LB1, 'permanent')).cleared_at !== null, 'ended by the same batch\'s later check-in');
  assert.is((await alarmOf(IMEI.LB1, 'low-battery')).cleared_at, null);
  assert.is((await alarmOf(IMEI.LA2, 'permanent')).cleared_at, null);
  // Each device once (alarms/raise.ts, set-based): LA2 moves to low battery, LB1 back to normal.
  await applyCheckInAlarms(db.pool, [item(IMEI.LA2, T + 4 * MIN, 402), item(IMEI.LB1, T + 4 * MIN, 0)], T + 4 * MIN);
  const { rows } = await db.pool.query<{ imei: string; kind: string; change: string }>(
    `select a."IMEINumber" as imei, a.kind, c.change from alarm_changes c join alarms a on a.id = c.alarm_id
      where a."IMEINumber" = any($1) order by c.id`, [[IMEI.LA2, IMEI.LB1]]);
  const of = (imei: string) => rows.filter((r) => r.imei === imei).map((r) => `${r.kind} ${r.change}`);
  assert.equal(of(IMEI.LB1), ['permanent raised', 'permanent cleared', 'low-battery raised', 'low-battery cleared']);
  assert.equal(of(IMEI.LA2), ['permanent raised', 'permanent cleared', 'low-battery raised']);
  assert.is((await alarmOf(IMEI.LA2, 'low-battery')).cleared_at, null);
});

test.run();
