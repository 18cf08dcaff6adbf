// Attacks on the held chattering clear and the chatter shelving across organisations (docs/decisions.md#review-of-the-held-clear-and-the-rollup):
// a device moved from one organisation to another (`faultline import` re-homes it; reach cuts at
// OrganizationSince, docs/decisions.md#reach-applied-once) must not let the new owner's raise reopen, or take
// back the clear of, the old owner's row, nor the old owner's shelving hide the new owner's alarm. The notify
// stage's alarm side (alarms/raise.ts), the router (alarms/router.ts) and the board's read (api/board/) against
// the real database, on a controlled service clock.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyCheckInAlarms, raiseEventAlarm } from '../../../alarms/raise.js';
import { routeAlarms } from '../../../alarms/router.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import type { Caller } from '../../../api/auth/caller.js';
import { readBoardAlarms } from '../../../api/board/read.js';
import { withTransaction } from '../../../db/transaction.js';
import { CHATTER_WINDOW_MS } from '../../../domain/alarm-chatter.js';
import { deskPerOrganisation, importAlarms } from '../../../support/alarm-setup.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';
import { faultCheckIn, ROUTE_SETTINGS } from './chatter-settings.js';

const test = suite('chattering alarms: attacks across organisations');
const MIN = 60_000;
const A = '861000000000000'; // north's in the fixture, moved to south by the tests
const LINE = { north: 'north-F12', south: 'south-F12' } as const;
const tally: Tally = emptyTally();
let db: TestDatabase;
let T = Date.UTC(2026, 0, 5, 0, 0, 0);

const checkIn = (org: keyof typeof LINE, atMs: number, code: number): CheckInAlarms => faultCheckIn(A, org, LINE[org], atMs, code);
const notify = (org: keyof typeof LINE, deviceMs: number, code: number, serviceMs = deviceMs) => applyCheckInAlarms(db.pool, [checkIn(org, deviceMs, code)], serviceMs);
const route = (serviceMs: number) => routeAlarms(db.pool, ROUTE_SETTINGS, serviceMs);
/** `faultline import` moving device A to `org` at `atMs` (what reach cuts at). */
const moveTo = (org: keyof typeof LINE, atMs: number) => db.pool.query(
  `update device_information set "OrganizationID" = $2, "PowerLineID" = $3, "OrganizationSince" = $4 where "IMEINumber" = $1`, [A, org, LINE[org], new Date(atMs)]);
/** Each organisation's messages about device A, oldest first ("kind"). */
const heardBy = async (org: string) => (await db.pool.query<{ kind: string }>(
  `select o.kind from alarm_outbox o join alarms a on a.id = o.alarm_id where a."IMEINumber" = $1 and o."OrganizationID" = $2 order by o.id`, [A, org])).rows.map((r) => r.kind);
const rows = async () => (await db.pool.query<{ org: string; open: boolean; chatter: number }>(
  `select "OrganizationID" as org, cleared_at is null as open, chatter_count as chatter from alarms where "IMEINumber" = $1 order by id`, [A])).rows;
const admin = (org: string): Caller => ({ userId: null, org, role: 'admin', timeZone: 'UTC', maskFaultDetails: false });

test.before(async () => {
  db = await createTestDatabase('alarm_chatter_attacks');
  await importDemoData(db.pool);
  await importAlarms(db.pool, deskPerOrganisation(['permanent', 'temporary']));
});
test.after.each(async () => {
  await db.pool.query('delete from alarm_outbox; delete from alarm_changes; delete from alarms; delete from alarm_shelves; delete from checkin_clock');
  await moveTo('north', 0);
  T += 24 * 60 * MIN;
});
test.after(async () => {
  reportTally('chattering alarms across organisations', tally);
  await db?.drop();
});

test('a raise of the new owner within the window neither reopens the old owner\'s row nor takes back its clear', async () => {
  tally.attacksTried++;
  await notify('north', T, 4);
  await route(T + 1_000);
  await notify('north', T + 30_000, 0); // north's clear, held: the row may still chatter
  await moveTo('south', T + MIN);
  await notify('south', T + 2 * MIN, 4); // within the window of north's last raise
  await route(T + 3 * MIN);
  const after = await rows();
  assert.equal(after.map((r) => r.org), ['north', 'south'], 'south\'s fault is a row of south\'s, not one more episode of north\'s');
  assert.equal(after.map((r) => r.open), [false, true], 'north\'s row stays cleared; south\'s is the open one');
  assert.is(after[0]!.chatter, 1, 'north\'s row counts no episode of south\'s');
  assert.equal(await heardBy('south'), ['raised'], 'south\'s desk hears its fault');
  assert.equal(await heardBy('north'), ['raised', 'cleared'], 'north\'s desk hears its own clear: a newer row of the point ends the hold');
  tally.attacksRefused++;
});

test('the old owner\'s shelving of the point does not hide the new owner\'s alarm on its board', async () => {
  tally.attacksTried++;
  const north = await withTransaction(db.pool, (c) => raiseEventAlarm(c, { OrganizationID: 'north', IMEINumber: A, PowerLineID: LINE.north, kind: 'model-change', episode: new Date(T).toISOString(), detail: {} }, T));
  assert.ok(north);
  // North shelves its maintenance point for a week (as POST /board/alarms/:id/shelve writes it), then the device moves.
  await db.pool.query(`insert into alarm_shelves ("OrganizationID", "IMEINumber", kind, until, shelved_by, shelved_at) values ('north', $1, 'model-change', $2, 'ops@north.example', $3)`,
    [A, new Date(T + 7 * 24 * 60 * MIN), new Date(T)]);
  await db.pool.query('update alarms set cleared_at = $2 where id = $1', [north, new Date(T + MIN)]);
  await moveTo('south', T + 2 * MIN);
  const south = await withTransaction(db.pool, (c) => raiseEventAlarm(c, { OrganizationID: 'south', IMEINumber: A, PowerLineID: LINE.south, kind: 'model-change', episode: new Date(T + 3 * MIN).toISOString(), detail: {} }, T + 3 * MIN));
  assert.ok(south);
  const { alarms } = await readBoardAlarms(db.pool, admin('south'), T + 4 * MIN);
  const mine = alarms.find((a) => a.id === south);
  assert.ok(mine, 'south\'s board lists its alarm');
  assert.is.not(mine.state, 'shelved', 'north\'s shelving does not hide south\'s alarm (south could not even unshelve it: it is not south\'s)');
  tally.attacksRefused++;
});

test('a device checking in within the window for ever holds a clear no longer than the hold', async () => {
  tally.attacksTried++;
  await notify('north', T, 4);
  await route(T + 1_000);
  await notify('north', T + 30_000, 0);
  // Plain check-ins (no transition) every 5 minutes, each within the window of the row's last raise.
  for (let t = T + 5 * MIN; t <= T + 30 * MIN; t += 5 * MIN) {
    await applyCheckInAlarms(db.pool, [{ ...checkIn('north', t, 0), transition: null }], t);
    await route(t + 1_000);
  }
  assert.equal(await heardBy('north'), ['raised', 'cleared'], 'the clear went out once the hold (the window on the service clock) passed');
  assert.ok(CHATTER_WINDOW_MS < 30 * MIN);
  tally.attacksRefused++;
});

test.run();
