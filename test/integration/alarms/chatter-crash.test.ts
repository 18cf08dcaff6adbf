// The router killed between storing a held clear's messages and marking the clear routed (the seam
// alarms.router-before-mark, config/failpoints.ts): a real child process (route-round.ts) dies by SIGKILL there,
// then the router runs again. The round is one transaction, so nothing of it stays: after the restart each
// recipient hears the clear once, or, when the fault returned meanwhile within the window, the raise reopened the
// row and took the clear back and nobody hears it (docs/decisions.md#review-of-the-held-clear-and-the-rollup).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { routeAlarms } from '../../../alarms/router.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { SEAMS } from '../../../config/failpoints.js';
import { CHATTER_WINDOW_MS } from '../../../domain/alarm-chatter.js';
import { importAlarms } from '../../../support/alarm-setup.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData } from '../../../support/reference-data.js';
import { waitFor } from '../../../support/wait-for.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';
import { faultCheckIn, ROUTE_SETTINGS } from './chatter-settings.js';

const test = suite('chattering alarms: the router killed mid-round');
const SEAM = 'alarms.router-before-mark';
const MIN = 60_000;
const A = '861000000000000';
const tally: Tally = emptyTally();
let db: TestDatabase;
let T = Date.UTC(2026, 0, 5, 0, 0, 0);

const checkIn = (atMs: number, code: number): CheckInAlarms => faultCheckIn(A, 'north', 'north-F12', atMs, code);
const notify = (deviceMs: number, code: number, serviceMs = deviceMs) => applyCheckInAlarms(db.pool, [checkIn(deviceMs, code)], serviceMs);
/** One round in this process, once the killed process's transaction (and its advisory lock) is gone. */
const route = (serviceMs: number) => waitFor('a router round that is not skipped', async () => {
  const r = await routeAlarms(db.pool, ROUTE_SETTINGS, serviceMs);
  return r.skipped ? null : r;
});
/** A round in a child process armed to die at the seam; it must die there. */
function routeKilled(serviceMs: number): void {
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./route-round.ts', import.meta.url))], {
    env: { ...process.env, DATABASE_URL: db.url, NOW_MS: String(serviceMs), FAULTLINE_FAILPOINTS: `${SEAM}=exit` }, encoding: 'utf8', timeout: 120_000,
  });
  assert.is(child.signal, 'SIGKILL', `the router died by SIGKILL\n${child.stdout}\n${child.stderr}`);
  assert.match(child.stderr, `failpoint ${SEAM}: exit`, 'at the seam');
  tally.faultsInjected++;
}
const heard = async () => (await db.pool.query<{ kind: string }>(
  `select o.kind from alarm_outbox o join alarms a on a.id = o.alarm_id where a."IMEINumber" = $1 order by o.id`, [A])).rows.map((r) => r.kind);
const unrouted = async () => (await db.pool.query<{ change: string }>(
  `select c.change from alarm_changes c join alarms a on a.id = c.alarm_id where a."IMEINumber" = $1 and c.routed_at is null order by c.id`, [A])).rows.map((r) => r.change);

test.before(async () => {
  db = await createTestDatabase('alarm_chatter_crash');
  await importDemoData(db.pool);
  await importAlarms(db.pool, {
    recipients: [{ id: 'r-desk', OrganizationID: 'north', channel: 'email', address: 'desk@north.example' }],
    rules: [{ id: 'r-faults', OrganizationID: 'north', class: 'operations', what: ['permanent', 'temporary'], who: ['r-desk'] }],
  });
});
test.after.each(async () => {
  await db.pool.query('delete from alarm_outbox; delete from alarm_changes; delete from alarms; delete from checkin_clock');
  T += 24 * 60 * MIN;
});
test.after(async () => {
  reportTally('chattering alarms: router killed mid-round', tally);
  await db?.drop();
});

test('the seam is declared', () => {
  assert.ok(SEAM in SEAMS);
});

/** A fault raised and routed, then cleared; the clear's hold has passed when the killed round routes it. */
async function clearDue(): Promise<number> {
  await notify(T, 4);
  await route(T + 1_000);
  await notify(T + 30_000, 0);
  const due = T + 30_000 + CHATTER_WINDOW_MS + 1_000;
  routeKilled(due);
  assert.equal(await heard(), ['raised'], 'the killed round left no message');
  assert.equal(await unrouted(), ['cleared'], 'and no mark: the clear is still to route');
  return due;
}

test('killed after storing the clear\'s messages, before marking it: the restarted router sends the clear once', async () => {
  tally.messagesSent += 2;
  const due = await clearDue();
  await route(due + 1_000);
  await route(due + 2_000);
  const got = await heard();
  assert.equal(got, ['raised', 'cleared'], 'one raise and one clear: nothing lost, nothing twice');
  assert.equal(await unrouted(), []);
  tally.messagesStored += got.length;
});

test('killed there, and the fault returns within the window before the restart: the clear is taken back, never sent', async () => {
  tally.messagesSent += 1;
  const due = await clearDue();
  // Device time within the window of the last raise; it reaches notify late (a backlog), after the killed round.
  await notify(T + 2 * MIN, 4, due + 500);
  await route(due + 1_000);
  await route(due + 2 * CHATTER_WINDOW_MS);
  const got = await heard();
  assert.equal(got, ['raised'], 'nobody hears a clear while the fault stands');
  const open = (await db.pool.query<{ n: number }>(`select count(*)::int as n from alarms where "IMEINumber" = $1 and cleared_at is null`, [A])).rows[0]!.n;
  assert.is(open, 1, 'the row reopened');
  tally.messagesStored += got.length;
});

test.run();
