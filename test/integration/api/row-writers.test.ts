// The routes that now write their rows as arrays (issue 45 point 2; docs/decisions.md#reads-that-build-nothing-they-throw-away)
// answer byte for byte what they answered when they built objects: the fleet device list and its CSV, map-data,
// device-summary and device-information, over a database filled through the real stages. The app's pool is
// watched: each statement a route reads as arrays is read again as objects (the way the routes read it before),
// and the old object answer (test/helpers/object-answers.ts) made from those rows, through the same fault mask,
// must be the body the route sent. As the admin and a group user of an organisation, with its mask off and on,
// at both time precisions.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import type pg from 'pg';
import { createApp } from '../../../api/app.js';
import { presentContext, type PresentContext } from '../../../api/device-records/present.js';
import { loadCodeStrings } from '../../../api/device-records/code-strings-file.js';
import { codeText } from '../../../domain/code-strings.js';
import { maskFaultClass, maskText } from '../../../domain/fault-masking.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { deviceSummaryAnswer, fleetCsv, presentDeviceInformation, presentFleetDevice, presentMapDevice } from '../../helpers/object-answers.js';
import { MASKED_ORG, setMasked } from '../masking/every-class.js';
import { fillDatabase, JWT_SECRET, login, NOW, USERS as USER_EMAILS, type UserName } from './seeded-api.js';
import { recordingPool } from '../../helpers/recording-pool.js';

const test = suite('row writers');
type Row = Record<string, unknown>;
/** A statement the app read as arrays. */
interface ArrayRead { text: string; values: unknown[] }

const codeStrings = loadCodeStrings();
const OFFLINE_AFTER_HOURS = 26;
const maskNames = { faultTypeNone: codeText(codeStrings.FaultType, 0)! };
const USERS: UserName[] = ['northAdmin', 'northEast'];
let db: TestDatabase;
let app: Hono;
const tokens = {} as Record<UserName, string>;
const reads: ArrayRead[] = [];
let compared = 0;
let maskChanged = 0;

/** `pool` as the app uses it, with every statement it sends with `rowMode: 'array'` appended to `reads`. */
const watching = (pool: pg.Pool): pg.Pool => recordingPool(pool, ({ text, values, rowMode }) => { if (rowMode === 'array') reads.push({ text, values }); });

/** The caller's display context, as the route makes it from the token's zone and the precision header. */
function contextOf(user: UserName, seconds: boolean): PresentContext {
  const claims = JSON.parse(Buffer.from(tokens[user].split('.')[1]!, 'base64url').toString('utf8')) as { tz: string };
  return presentContext({ timeZone: claims.tz, displaySeconds: seconds } as Parameters<typeof presentContext>[0], codeStrings);
}

/** Each statement the route read as arrays, read again as objects (unnamed, so nothing prepared is shared). */
async function objectRows(): Promise<Row[][]> {
  const out: Row[][] = [];
  for (const r of reads.splice(0)) out.push((await db.pool.query({ text: r.text, values: r.values })).rows as Row[]);
  return out;
}

interface Case { path: string; kind: 'map' | 'summary' | 'device' | 'fleet' | 'csv' }

/** The body the route answered before, from the object rows of its statements. */
function oldBody(c: Case, rows: Row[][], ctx: PresentContext, sent: string): string {
  switch (c.kind) {
    case 'map': return JSON.stringify({ data: rows[0]!.map((r) => presentMapDevice(r, ctx)) });
    case 'summary': return JSON.stringify(deviceSummaryAnswer(rows[0] as never, OFFLINE_AFTER_HOURS));
    case 'device': return JSON.stringify(presentDeviceInformation(rows[0]![0]!, ctx));
    // The page's total and position are pageText's (test/api/row-json.test.ts); its rows are what is compared here.
    case 'fleet': return JSON.stringify({ ...(JSON.parse(sent) as Row), data: rows[0]!.map(presentFleetDevice) });
    case 'csv': return fleetCsv(rows);
  }
}

/** What the fault mask makes of an answer for a masked caller (api/fault-mask-policy.ts). */
const maskedBody = (c: Case, body: string) => (c.kind === 'csv' ? maskText(body) : JSON.stringify(maskFaultClass(JSON.parse(body), maskNames)));

async function compare(c: Case, user: UserName, masked: boolean, seconds: boolean): Promise<void> {
  reads.length = 0;
  const res = await app.request(c.path, { headers: { authorization: `Bearer ${tokens[user]}`, ...(seconds ? { 'x-time-precision': 'seconds' } : {}) } });
  const sent = await res.text();
  const rows = await objectRows();
  const label = `${c.path} as ${user}${masked ? ', masked' : ''}${seconds ? ', seconds' : ''}`;
  if (c.kind === 'device' && res.status === 404) {
    // Out of reach: the statement found no row, as before.
    assert.equal(rows.map((r) => r.length), [0], label);
    return;
  }
  assert.is(res.status, 200, `${label}: ${sent.slice(0, 200)}`);
  assert.ok(rows.length > 0, `${label}: the route read its rows as arrays`);
  const before = oldBody(c, rows, contextOf(user, seconds), sent);
  const expected = masked ? maskedBody(c, before) : before;
  if (expected !== before) maskChanged++;
  assert.is(sent, expected, label);
  compared++;
}

async function cases(): Promise<Case[]> {
  const { rows } = await db.pool.query<{ imei: string }>('select "IMEINumber" as imei from device_information where "OrganizationID" = $1 order by 1', [MASKED_ORG]);
  return [
    { path: '/device-records/map-data', kind: 'map' },
    { path: `/device-records/map-data?filterBy=${encodeURIComponent('{"BatteryOrLine":1}')}`, kind: 'map' },
    { path: '/device-records/device-summary', kind: 'summary' },
    { path: '/api/fleet/devices', kind: 'fleet' },
    { path: '/api/fleet/devices?limit=3&page=1', kind: 'fleet' },
    { path: `/api/fleet/devices?limit=500&sortBy=${encodeURIComponent('{"field":"onlineRate7d","order":"desc"}')}`, kind: 'fleet' },
    { path: `/api/fleet/devices?filterBy=${encodeURIComponent('{"signal":{"eq":"weak"}}')}`, kind: 'fleet' },
    { path: '/api/fleet/devices.csv', kind: 'csv' },
    ...rows.map((r) => ({ path: `/device-records/device-information/${r.imei}`, kind: 'device' as const })),
  ];
}

/**
 * Rows the fed fixtures lack: a device that never checked in (no latest record, no assessment; a name with quotes
 * and non-ASCII), in the group user's groups, and a second drifting setting on each drifting device (the CSV joins them).
 */
async function addEdgeRows(): Promise<void> {
  const linked = await db.pool.query(`
    with d as (insert into device_information ("IMEINumber", "Real_Name", "OrganizationID", "PowerLineID", "serialNumber")
               values ('861000000009999', 'Pole "7" — Süd', $1, 'north-F12', 'SN-9999') returning "DeviceID")
    insert into group_device_links ("DeviceID", "GroupID")
    select d."DeviceID", ug."GroupID" from d, user_groups ug join users u on u.id = ug.user_id where lower(u.email) = lower($2)`, [MASKED_ORG, USER_EMAILS.northEast.email]);
  assert.is(linked.rowCount, 1, 'the device is in the group user\'s group');
  const { rowCount } = await db.pool.query(`insert into device_drift ("IMEINumber", setting, expected, reported, since_day, assessed_at)
    select "IMEINumber", 'LEDDuration', '30', '60', since_day, assessed_at from device_drift`);
  assert.ok((rowCount ?? 0) > 0, 'the seeded assessment has drifting devices');
}

test.before(async () => {
  db = await createTestDatabase('rowwriters');
  await fillDatabase(db);
  await addEdgeRows();
  // No account cache: the mask switched on below applies to the next request.
  app = createApp({ readiness: {}, pool: watching(db.pool), jwtSecret: JWT_SECRET, now: () => NOW, codeStrings, offlineAfterHours: OFFLINE_AFTER_HOURS, accountCacheMs: 0 });
  for (const user of USERS) tokens[user] = await login(app, user);
});

test.after(async () => {
  await db?.drop();
});

for (const masked of [false, true]) {
  test(`every answer as it was made from objects (mask ${masked ? 'on' : 'off'}), admin and group user, both precisions`, async () => {
    await setMasked(db, masked);
    const all = await cases();
    for (const user of USERS) {
      for (const seconds of [false, true]) {
        for (const c of all) await compare(c, user, masked, seconds);
      }
    }
  });
}

test('the comparison covered every route, and the mask changed some answers', () => {
  // 2 users x 2 precisions x 2 mask settings x the 8 forms of the list routes, and each reachable device.
  assert.ok(compared >= 2 * 2 * 2 * 8, `answers compared: ${compared}`);
  assert.ok(maskChanged > 0, 'no masked answer differed from the unmasked one: the mask was not exercised');
});

test.run();
