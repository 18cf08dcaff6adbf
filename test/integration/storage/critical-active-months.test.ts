// The `by active device` walk of critical data (api/device-records/critical-data.ts, migration 0051's
// critical_event_months) over a wide range, on real PostgreSQL cut into one partition a day: a group user may ask
// for every day since 2000 (`from=20000101`), and a sparse source (a few DM1 indicators) is then walked per active
// device. Each device's walk must stay in the months the table lists for it, not descend the index of every
// partition of the range: at a day cut that is hundreds of descents per device and request, where a walk by time
// costs one per partition (docs/decisions.md#critical-data-sources-a-group-has-not). The answers stay the walk by
// time's, row for row, total included.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Caller } from '../../../api/auth/caller.js';
import { criticalData, criticalDataPage, walkFor, type CriticalWalk } from '../../../api/device-records/critical-data.js';
import type { ReadDeps } from '../../../api/device-records/endpoint.js';
import { readDeps } from '../../helpers/read-deps.js';
import { parseListQuery } from '../../../api/device-records/list-params.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { dm1WalkNodes } from '../../helpers/dm1-walk.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { NOW, USERS } from '../api/seeded-api.js';
import { printHookErrors } from '../../helpers/hook-errors.js';

const test = printHookErrors(suite('critical data by active device: a wide range walks each device in its own months (real Postgres)'));

const PREFIX = '8694000';
/** 2 x 210: north-east reaches more than DEVICE_WALK_MAX devices. */
const DEVICES = 420;
/** Eight months cut a day each: some 240 partitions per table. */
const MONTHS = Array.from({ length: 8 }, (_, i) => new Date(Date.UTC(2026, 3 + i, 1)).toISOString().slice(0, 10));
/** North-east devices with DM1 events, each in one month (the k-th in month k % 8), and a north-west one out of reach. */
const ACTIVE = 12;

let db: TestDatabase;
let deps: ReadDeps;
let caller: Caller;
/** Device-months of north-east's DM1 events, as critical_event_months holds them. */
let activeMonths = 0;

test.before(async () => {
  db = await createTestDatabase('active_months');
  await importDemoData(db.pool);
  for (const m of MONTHS) await db.pool.query(`select fl_ensure_month($1::date, 'day')`, [m]);
  await registerDevices(db.pool, { prefix: PREFIX, devices: DEVICES, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  const { rows: active } = await db.pool.query<{ imei: string; group: string }>(`
    (select d."IMEINumber" as imei, l."GroupID" as group from device_information d join group_device_links l using ("DeviceID") where l."GroupID" = 'north-east' order by 1 limit $1)
    union all (select d."IMEINumber", l."GroupID" from device_information d join group_device_links l using ("DeviceID") where l."GroupID" = 'north-west' order by 1 limit 1)`, [ACTIVE]);
  // One check-in and one DM1 event of each active device in its month, and one more of the first device a month later.
  const placed = active.map((a, k) => ({ imei: a.imei, month: MONTHS[k % MONTHS.length]! })).concat([{ imei: active[0]!.imei, month: MONTHS[1]! }]);
  for (const [k, { imei, month }] of placed.entries()) {
    const at = new Date(Date.parse(`${month}T00:00:00Z`) + (3 + k) * 86_400_000 + 3_600_000);
    const { rows: [r] } = await db.pool.query<{ id: string }>(`insert into device_records ("IMEINumber", model, version, "date", "Ongoing_fault", "ActualOngoingFault", "ReportedOngoingFault", source_message_id)
      values ($1, 'FCI-3000', '4.2.1', $2, 0, 0, 0, $3) returning "RecordID" as id`, [imei, at, `active-${k}`]);
    await db.pool.query(`insert into dm1_event_records ("EventID", "EventTimestamp", "EventType", "PhaseAEvent", "PhaseBEvent", "PhaseCEvent", "PacketTimestamp", "IMEINumber", "DeviceRecordID", "ReportedEventTimestamp")
      values ($1, $2, 'FAULT_INITIAL', 'Fault', 'Normal', 'Normal', $3, $4, $5, $2)`, [9_700_000 + k, new Date(at.getTime() - 5_000), at, imei, r!.id]);
  }
  await db.pool.query('vacuum analyze');
  deps = readDeps(db.pool, () => NOW);
  const { rows: [u] } = await db.pool.query<{ id: string; org: string; role: 'user'; tz: string }>(`select u.id, u."OrganizationID" as org, u.role,
    coalesce(u.timezone, o.timezone) as tz from users u join organizations o using ("OrganizationID") where lower(u.email) = lower($1)`, [USERS.northEast.email]);
  caller = { userId: Number(u!.id), org: u!.org, role: u!.role, timeZone: u!.tz, maskFaultDetails: false };
  activeMonths = (await db.pool.query<{ n: number }>(`select count(*)::int as n from critical_event_months m join device_information d using ("IMEINumber")
    join group_device_links l using ("DeviceID") where m.source = 'dm1_event' and m.events > 0 and l."GroupID" = 'north-east'`)).rows[0]!.n;
  assert.is(activeMonths, ACTIVE + 1, 'north-east\'s DM1 device-months');
});
test.after(async () => { await db?.drop(); });

/** How many times the statement's plan descended a dm1_event_records partition's index, the row lookups by key apart. */
const dm1Descents = async (st: SentStatement): Promise<number> => (await dm1WalkNodes(db.pool, st)).reduce((sum, n) => sum + n['Actual Loops'], 0);

const RANGES: readonly Record<string, string>[] = [{ from: '20000101' }, { from: '20260401', to: '20261130' }, { to: '29991231' }];

for (const raw of RANGES) {
  test(`${new URLSearchParams(raw).toString()}: DM1 walked by active device, each device in its months alone; the answer is the walk by time's`, async () => {
    const full = { ...raw, limit: '5' };
    const q = parseListQuery(full, criticalData.params);
    const walk = await walkFor(deps, caller, q);
    assert.ok(typeof walk[1] === 'object', 'DM1: a few of north-east\'s devices, walked over that list');
    const sent: SentStatement[] = [];
    const page = await criticalDataPage({ ...deps, pool: recordingPool(db.pool, (st) => { sent.push(st); }) }, caller, q, walk);
    const byTime = await criticalDataPage(deps, caller, q, ['by time', 'by time', 'by time'] as CriticalWalk);
    assert.fixture(page.text, byTime.text, 'the rows and the total of the walk by time');
    const answer = JSON.parse(page.text) as { data: unknown[]; total: number };
    assert.equal([answer.data.length, answer.total], [5, ACTIVE + 1], 'a full page, and its total counted');
    const { rows: [parts] } = await db.pool.query<{ n: number }>(`select count(*)::int as n from pg_inherits where inhparent = 'dm1_event_records'::regclass`);
    // A device-month is at most 31 day partitions (and the default one).
    const most = activeMonths * 32;
    const statement = (prefix: string) => sent.find((st) => st.text.trimStart().startsWith(prefix))!;
    for (const [what, st] of [['page', statement('select u.*')], ['total', statement('select (select count(*)')]] as const) {
      const descents = await dm1Descents(st);
      assert.ok(descents <= most, `${what}: ${descents} descents of DM1 partitions for ${activeMonths} device-months (at most ${most}; ${parts!.n} partitions)`);
    }
  });
}

test.run();
