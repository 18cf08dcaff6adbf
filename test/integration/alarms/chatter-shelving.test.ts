// Shelving a chattering operations alarm (docs/decisions.md#hot-spots-and-chattering-alarms; review M5): any user in
// reach may shelve it, for at most ALARM_CHATTER_SHELVE_MAX_MINUTES (not a week), and the shelving covers that
// row's chatter only: a new row of the device and kind (a new fault) lifts it, so the fault is seen. A maintenance
// point's shelving holds for its time whatever is raised. Against the real app and database.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../../api/app.js';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { CHATTER_WINDOW_MS } from '../../../domain/alarm-chatter.js';
import { FAULT_CODE_KINDS, kindOfCode } from '../../../domain/alarm-kinds.js';
import { DEFAULT_CHATTER_SHELVE_MAX_MINUTES } from '../../../domain/alarm-states.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { JWT_SECRET, login } from '../api/seeded-api.js';
import { IMEI, topologyFile } from '../incidents/feeder.js';

const test = suite('shelving a chattering alarm');
const MIN = 60_000;
const T = Date.now() - 120 * MIN;
let db: TestDatabase;
let app: ReturnType<typeof createApp>;

function item(imei: string, atMs: number, code: number): CheckInAlarms {
  const kind = kindOfCode(code);
  return { IMEINumber: imei, OrganizationID: 'north', PowerLineID: 'north-F9', deviceName: null, date: new Date(atMs).toISOString(), code, transition: { raise: kind, end: FAULT_CODE_KINDS.filter((k) => k !== kind) }, modelChange: null };
}
const notify = (imei: string, atMs: number, code: number) => applyCheckInAlarms(db.pool, [item(imei, atMs, code)], atMs);
const alarmOf = async (imei: string, kind: string) => (await db.pool.query<{ id: string; chatter_count: number }>(
  'select id, chatter_count from alarms where "IMEINumber" = $1 and kind = $2 order by id desc limit 1', [imei, kind])).rows[0]!;
const shelve = async (id: string, minutes: number) => app.request(`/api/alarms/${id}/shelve`, {
  method: 'POST', headers: { authorization: `Bearer ${await login(app, 'northEast')}`, 'content-type': 'application/json' }, body: JSON.stringify({ minutes }),
});
interface BoardAnswer { items: { id: number; shelveMaxMinutes: number | null }[]; shelved: { IMEINumber: string; kind: string }[] }
const board = async (): Promise<BoardAnswer> => (await app.request('/api/board', { headers: { authorization: `Bearer ${await login(app, 'northEast')}` } })).json() as never;

test.before(async () => {
  db = await createTestDatabase('alarm_chatter_shelving');
  await importDemoData(db.pool);
  await importReferenceData(db.pool, topologyFile());
  app = createApp({ readiness: {}, pool: db.pool, jwtSecret: JWT_SECRET, portalDir: null });
});
test.after(async () => { await db?.drop(); });

test('a chattering operations alarm is shelved for at most a shift, not a week', async () => {
  await notify(IMEI.LA1, T, 2);
  await notify(IMEI.LA1, T + 30_000, 0);
  await notify(IMEI.LA1, T + MIN, 2);
  const a = await alarmOf(IMEI.LA1, 'temporary');
  assert.is(a.chatter_count, 2, 'chattering');
  const week = await shelve(a.id, 7 * 24 * 60);
  assert.is(week.status, 400, 'a week is refused');
  assert.match(JSON.stringify(await week.json()), `at most ${DEFAULT_CHATTER_SHELVE_MAX_MINUTES} minutes`);
  assert.is((await board()).shelved.length, 0, 'nothing shelved');
  assert.is((await shelve(a.id, DEFAULT_CHATTER_SHELVE_MAX_MINUTES + 1)).status, 400);
  const row = (await board()).items.find((i) => i.id === Number(a.id));
  assert.is(row?.shelveMaxMinutes, DEFAULT_CHATTER_SHELVE_MAX_MINUTES, 'the board says how long it may be shelved');
});

test('the row chatters on under its shelving; a new fault of the point lifts it and is seen', async () => {
  const first = await alarmOf(IMEI.LA1, 'temporary');
  assert.is((await shelve(first.id, 60)).status, 200);
  await notify(IMEI.LA1, T + 90_000, 0);
  await notify(IMEI.LA1, T + 2 * MIN, 2);
  await notify(IMEI.LA1, T + 2 * MIN + 30_000, 0);
  assert.is((await alarmOf(IMEI.LA1, 'temporary')).id, first.id, 'the same row chatters');
  let b = await board();
  assert.not.ok(b.items.some((i) => i.id === Number(first.id)), 'still shelved');
  assert.equal(b.shelved.map((s) => s.IMEINumber), [IMEI.LA1]);
  // Later than the window: a new fault, a new row.
  await notify(IMEI.LA1, T + 2 * MIN + CHATTER_WINDOW_MS + MIN, 2);
  const next = await alarmOf(IMEI.LA1, 'temporary');
  assert.not.equal(next.id, first.id);
  b = await board();
  assert.ok(b.items.some((i) => i.id === Number(next.id)), 'the new fault is on the board');
  assert.equal(b.shelved, [], 'the shelving was lifted');
});

test('a maintenance point\'s shelving holds for its time whatever is raised', async () => {
  await notify(IMEI.T1, T, 402);
  const battery = await alarmOf(IMEI.T1, 'low-battery');
  assert.is((await shelve(battery.id, 7 * 24 * 60)).status, 200, 'a week for a maintenance alarm');
  await notify(IMEI.T1, T + MIN, 0);
  await notify(IMEI.T1, T + 30 * MIN, 402);
  const again = await alarmOf(IMEI.T1, 'low-battery');
  assert.not.equal(again.id, battery.id);
  const b = await board();
  assert.not.ok(b.items.some((i) => i.id === Number(again.id)), 'the point stays shelved');
  assert.ok(b.shelved.some((s) => s.IMEINumber === IMEI.T1));
});

test.run();
