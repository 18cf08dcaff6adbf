// What people hear of a chattering alarm (docs/decisions.md#hot-spots-and-chattering-alarms; review H3): the
// notify stage's alarm side (alarms/raise.ts) and the router (alarms/router.ts) against the real database, on a
// controlled service clock. A chattering kind's clear waits for the window; a raise within it reopens the row and
// takes the clear back, so nobody is told "cleared" while the fault stands; a raise after the clear went out is
// a row of its own, announced. Either way a recipient's last message matches the fault's state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyCheckInAlarms, applyCheckInAlarmsIn } from '../../../alarms/raise.js';
import { routeAlarms } from '../../../alarms/router.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { CHATTER_WINDOW_MS } from '../../../domain/alarm-chatter.js';
import { importAlarms } from '../../../support/alarm-setup.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { faultCheckIn, ROUTE_SETTINGS } from './chatter-settings.js';

const test = suite('chattering alarms: what is routed');
const MIN = 60_000;
const A = '861000000000000';
let db: TestDatabase;
let T = Date.UTC(2026, 0, 5, 0, 0, 0);

const checkIn = (atMs: number, code: number): CheckInAlarms => faultCheckIn(A, 'north', 'north-F12', atMs, code);
/** A check-in of device time `deviceMs` worked by the notify stage at service time `serviceMs`. */
const notify = (deviceMs: number, code: number, serviceMs = deviceMs) => applyCheckInAlarms(db.pool, [checkIn(deviceMs, code)], serviceMs);
const route = (serviceMs: number) => routeAlarms(db.pool, ROUTE_SETTINGS, serviceMs);
/** The recipient's messages about device A, oldest first ("kind:alarm"). */
const heard = async () => (await db.pool.query<{ m: string }>(
  `select o.kind || ':' || o.alarm_id as m from alarm_outbox o join alarms a on a.id = o.alarm_id where a."IMEINumber" = $1 order by o.id`, [A])).rows.map((r) => r.m);
const lastHeard = async () => (await heard()).at(-1)?.split(':')[0];
/** Until another session of this database waits for a row lock (the two sides met over the clear's row). */
const someoneWaits = () => waitFor('a session waiting for the clear\'s row lock', async () => (await db.pool.query<{ n: number }>(
  `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).rows[0]!.n > 0 || null);
const active = async () => (await db.pool.query<{ n: number }>(`select count(*)::int as n from alarms where "IMEINumber" = $1 and cleared_at is null`, [A])).rows[0]!.n > 0;

test.before(async () => {
  db = await createTestDatabase('alarm_chatter_routing');
  await importDemoData(db.pool);
  await importAlarms(db.pool, {
    recipients: [{ id: 'r-desk', OrganizationID: 'north', channel: 'email', address: 'desk@north.example' }],
    rules: [{ id: 'r-faults', OrganizationID: 'north', class: 'operations', what: ['permanent', 'temporary'], who: ['r-desk'] }],
  });
});
test.after.each(async () => {
  await db.pool.query('delete from alarm_outbox; delete from alarms; delete from checkin_clock');
  T += 24 * 60 * MIN;
});
test.after(async () => { await db?.drop(); });

test('a clear within the window is held, and taken back when the fault returns: the last message is the raise', async () => {
  await notify(T, 4);
  await route(T + 1_000);
  await notify(T + 30_000, 0);
  await route(T + MIN);
  assert.equal(await heard(), [`raised:${(await heard())[0]!.split(':')[1]}`], 'the clear waits: the row may still chatter');
  await notify(T + 2 * MIN, 4);
  await route(T + 3 * MIN);
  await route(T + 30 * MIN);
  assert.ok(await active(), 'the fault stands');
  assert.is(await lastHeard(), 'raised', 'nobody was told it cleared');
  const changes = (await db.pool.query<{ change: string }>(`select c.change from alarm_changes c join alarms a on a.id = c.alarm_id where a."IMEINumber" = $1`, [A])).rows;
  assert.equal(changes.map((c) => c.change), ['raised'], 'the held clear was taken back');
  // It clears for good: the clear goes out once the row stayed cleared for the window.
  await notify(T + 3 * MIN, 0, T + 31 * MIN);
  await route(T + 32 * MIN);
  assert.is(await lastHeard(), 'raised');
  await route(T + 31 * MIN + CHATTER_WINDOW_MS + 1_000);
  assert.is(await lastHeard(), 'cleared');
  assert.is((await heard()).length, 2, 'one raise and one clear for the whole chatter');
});

test('a fault that returns after its clear was sent is announced (a backlog: device time within the window)', async () => {
  await notify(T, 4);
  await route(T + 1_000);
  await notify(T + 30_000, 0, T + MIN);
  await route(T + MIN + CHATTER_WINDOW_MS + 1_000);
  assert.is(await lastHeard(), 'cleared', 'the clear went out after the window');
  // A check-in of device time 2 minutes after the first raise, worked late (a backlog): the fault is back.
  await notify(T + 2 * MIN, 4, T + 20 * MIN);
  await route(T + 21 * MIN);
  assert.ok(await active(), 'the fault stands');
  assert.is(await lastHeard(), 'raised', 'the return is announced');
  const rows = (await db.pool.query<{ n: number }>(`select count(*)::int as n from alarms where "IMEINumber" = $1`, [A])).rows[0]!.n;
  assert.is(rows, 2, 'a row of its own: the announced clear stays on the record');
  // The new row chatters on its own, with the hold: toggles within the window add episodes and no messages.
  await notify(T + 3 * MIN, 0, T + 22 * MIN);
  await notify(T + 4 * MIN, 4, T + 23 * MIN);
  await route(T + 24 * MIN);
  assert.is((await heard()).length, 3);
  assert.is(await lastHeard(), 'raised');
});

test('an acknowledged row cannot reopen: its clear is not held; a newer row sends the older clear first', async () => {
  await notify(T, 4);
  await route(T + 1_000);
  await db.pool.query(`update alarms set acknowledged_at = $2, acknowledged_by = 'op@north.example' where "IMEINumber" = $1`, [A, new Date(T + 10_000)]);
  await notify(T + 30_000, 0);
  await route(T + MIN);
  assert.is(await lastHeard(), 'cleared', 'acknowledged: sent at once');
  // Unacknowledged, cleared, and then a raise later than the window (device time): the new row's raise is
  // routed after the old row's clear, in the same round.
  await notify(T + 2 * MIN, 4);
  await notify(T + 3 * MIN, 0);
  await notify(T + 3 * MIN + CHATTER_WINDOW_MS, 4);
  await route(T + 3 * MIN + CHATTER_WINDOW_MS + 1_000);
  const kinds = (await heard()).map((m) => m.split(':')[0]);
  assert.equal(kinds, ['raised', 'cleared', 'raised', 'cleared', 'raised']);
});

test('a fault that stood longer than the window cannot reopen its row: its clear goes out at once', async () => {
  await notify(T, 4);
  await route(T + 1_000);
  await notify(T + CHATTER_WINDOW_MS + MIN, 0);
  await route(T + CHATTER_WINDOW_MS + MIN + 1_000);
  assert.equal((await heard()).map((m) => m.split(':')[0]), ['raised', 'cleared']);
});

test('a reopening raise and the router meeting over one clear: either the clear is taken back or the return is announced', async () => {
  const due = T + MIN + CHATTER_WINDOW_MS + 1_000; // the clear has stayed cleared for the hold (service clock)
  // The raise's transaction first: it holds the clear's row lock while the router's round runs.
  await notify(T, 4);
  await route(T + 1_000);
  await notify(T + 30_000, 0, T + MIN);
  const client = await db.pool.connect();
  try {
    await client.query('begin');
    await applyCheckInAlarmsIn(client, [checkIn(T + 2 * MIN, 4)], due);
    const round = route(due);
    await someoneWaits(); // the round read the clear, wrote its message, and waits to mark it
    await client.query('commit');
    await round;
  } finally {
    client.release();
  }
  assert.ok(await active());
  assert.equal((await heard()).map((m) => m.split(':')[0]), ['raised'], 'the taken-back clear was not sent');
});

test('the router first: the clear goes out, and the raise waiting for its lock becomes a new, announced row', async () => {
  const due = T + MIN + CHATTER_WINDOW_MS + 1_000;
  await notify(T, 4);
  await route(T + 1_000);
  await notify(T + 30_000, 0, T + MIN);
  const router = await db.pool.connect();
  try {
    // The router's marking, its transaction still open (as while it writes the round's messages).
    await router.query('begin');
    await router.query(`update alarm_changes set routed_at = $1 where change = 'cleared' and routed_at is null`, [new Date(due)]);
    const raise = notify(T + 2 * MIN, 4, due);
    await someoneWaits(); // the raise waits for the clear's row lock
    await router.query('commit');
    await raise;
  } finally {
    router.release();
  }
  await route(due + 1_000);
  assert.ok(await active());
  assert.is(await lastHeard(), 'raised', 'the return is announced');
  const rows = (await db.pool.query<{ n: number }>(`select count(*)::int as n from alarms where "IMEINumber" = $1`, [A])).rows[0]!.n;
  assert.is(rows, 2);
});

test.run();
