// Alarms of a device moved between organisations (docs/decisions.md#alarms-of-a-moved-device), on the real
// database: `faultline import` re-homing a device ends its old owner's open alarms (a cleared message to the old
// owner's recipients, no more escalation there), and the new owner's fault raises an alarm of its own, even when
// a batch enriched before the move raised the old owner's row again after it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyCheckInAlarms } from '../../../alarms/raise.js';
import { routeAlarms } from '../../../alarms/router.js';
import type { CheckInAlarms } from '../../../alarms/check-in-alarms.js';
import { CLEAR_HOLD_MS } from '../../../domain/alarm-chatter.js';
import { importReferenceData } from '../../../reference-data/index.js';
import { deskPerOrganisation, importAlarms } from '../../../support/alarm-setup.js';
import { importFixture } from '../../../support/checkins.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { importDemoData, testKeyring } from '../../../support/reference-data.js';
import { emptyTally, reportTally, type Tally } from '../../helpers/tally.js';
import { faultCheckIn, ROUTE_SETTINGS } from './chatter-settings.js';

const test = suite('alarms of a moved device');
const A = '861000000000000'; // north's in the fixture
const LINE = { north: 'north-F12', south: 'south-F12' } as const;
const tally: Tally = emptyTally();
let db: TestDatabase;
// The service clock starts at the wall clock: the import ends alarms at the database's now().
let T = Date.now();

const checkIn = (org: keyof typeof LINE, atMs: number, code: number): CheckInAlarms => faultCheckIn(A, org, LINE[org], atMs, code);
const notify = (org: keyof typeof LINE, atMs: number, code: number) => applyCheckInAlarms(db.pool, [checkIn(org, atMs, code)], atMs);
const route = (atMs: number) => routeAlarms(db.pool, ROUTE_SETTINGS, atMs);

/** `faultline import` with device A in `org`. */
async function moveTo(org: keyof typeof LINE): Promise<void> {
  const file = importFixture() as { devices: Record<string, unknown>[] };
  const device = { ...file.devices.find((d) => d.IMEINumber === A)!, OrganizationID: org, PowerLineID: LINE[org], groups: [] };
  await importReferenceData(db.pool, { devices: [device] }, { keyring: testKeyring() });
}

const alarms = async () => (await db.pool.query<{ org: string; kind: string; open: boolean }>(
  `select "OrganizationID" as org, kind, cleared_at is null as open from alarms where "IMEINumber" = $1 order by id`, [A])).rows.map((r) => `${r.org} ${r.kind} ${r.open ? 'open' : 'cleared'}`);
const heardBy = async (org: string) => (await db.pool.query<{ kind: string }>(
  `select o.kind from alarm_outbox o join alarms a on a.id = o.alarm_id where a."IMEINumber" = $1 and o."OrganizationID" = $2 order by o.id`, [A, org])).rows.map((r) => r.kind);

test.before(async () => {
  db = await createTestDatabase('alarm_moved_device');
  await importDemoData(db.pool);
  await importAlarms(db.pool, deskPerOrganisation(['permanent']));
});
test.after(async () => {
  reportTally('alarms of a moved device', tally);
  await db?.drop();
});

test('the move ends the old owner\'s open alarm; the new owner\'s fault is an alarm of its own', async () => {
  await notify('north', T, 4);
  await route(T);
  assert.equal(await heardBy('north'), ['raised']);
  T += 60_000;
  await moveTo('south');
  tally.attacksTried++;
  assert.equal(await alarms(), ['north permanent cleared'], 'the import ended north\'s alarm');
  // A chattering kind's clear is held while its row could still reopen (alarms/router.ts): routed after the hold.
  T += CLEAR_HOLD_MS + 60_000;
  await route(T);
  assert.equal(await heardBy('north'), ['raised', 'cleared'], 'north is told its alarm ended');
  T += 60_000;
  await notify('south', T, 4);
  await route(T);
  assert.equal(await alarms(), ['north permanent cleared', 'south permanent open']);
  assert.equal(await heardBy('south'), ['raised']);
  tally.attacksRefused++;
});

test('a batch enriched before the move raising the old owner\'s row again blocks nothing of the new owner\'s', async () => {
  await moveTo('north');
  T += 60_000;
  await notify('north', T, 0);
  T += 60_000;
  await moveTo('south');
  // The pipeline's backlog: a check-in enriched (as north's) before the move, notified after it.
  T += 60_000;
  await notify('north', T, 4);
  T += 60_000;
  tally.attacksTried++;
  await notify('south', T, 4);
  await route(T);
  const open = (await alarms()).filter((a) => a.endsWith('open'));
  assert.ok(open.includes('south permanent open'), `the new owner's fault is an open alarm of its own: ${open.join(', ')}`);
  assert.is((await heardBy('south')).at(-1), 'raised');
  tally.attacksRefused++;
});

test.run();
