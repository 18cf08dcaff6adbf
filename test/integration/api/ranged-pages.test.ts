// The fleet data-log's day ranges (docs/decisions.md#a-weeks-fleet-pages-prepared): a ranged first or keyset page
// holds its range as markers set when it is sent (prepared with placeholders, reach probed laterally), an OFFSET page
// or a filtered one holds it spelled in. Every form must answer what a direct SQL of the reach rule over the same
// instants answers: keyset chains and OFFSET pages, in zones far from UTC (the range is the caller's days), with a
// device moved into the organisation, as an admin, a group user and another organisation's admin. Edge days and
// forged cursors answer 200 or 400, never 500, and no marker reaches PostgreSQL. (Written by a hostile review.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeCursor } from '../../../api/device-records/keyset.js';
import { addMonths, monthOfMs } from '../../../domain/storage-months.js';
import { createTestDatabase, type TestDatabase } from '../../../support/database.js';
import { generateDeviceData, registerDevices } from '../../../support/device-data.js';
import { importDemoData } from '../../../support/reference-data.js';
import { recordingPool, type SentStatement } from '../../helpers/recording-pool.js';
import { zonedCaller, type DemoCaller } from '../../helpers/zoned-caller.js';

const test = suite('fleet data-log day ranges (real Postgres)');
const DAY = 86_400_000;
const NORTH = '8690000';
const SOUTH = '8691000';
let db: TestDatabase;
let newestMs = 0;
const sent: SentStatement[] = [];

type Body = { data: Record<string, unknown>[]; next?: string | null; total?: number };
const client = (who: DemoCaller, tz: string) => zonedCaller<Body>(db.pool, who, tz, { now: () => newestMs, appPool: recordingPool(db.pool, (st) => sent.push(st)) });

test.before(async () => {
  db = await createTestDatabase('ranged_pages');
  await importDemoData(db.pool);
  const now = monthOfMs(Date.now());
  const months = [addMonths(now, -3), addMonths(now, -2), addMonths(now, -1)];
  await registerDevices(db.pool, { prefix: NORTH, devices: 3, org: 'north', powerLines: ['north-F12', 'north-F7'], groups: ['north-east', 'north-west'] });
  await generateDeviceData(db.pool, { prefix: NORTH, devices: 3, count: 1500, months });
  await registerDevices(db.pool, { prefix: SOUTH, devices: 2, org: 'south', powerLines: ['south-F12', 'south-F7'], groups: ['south-east', 'south-west'] });
  await generateDeviceData(db.pool, { prefix: SOUTH, devices: 2, count: 1500, months });
  // One north device moved in mid-history: its earlier rows are not north's.
  await db.pool.query(`update device_information set "OrganizationSince" = (select percentile_disc(0.5) within group (order by "date") from device_records where "IMEINumber" = $1) where "IMEINumber" = $1`, [`${NORTH}00000001`]);
  await db.pool.query('analyze');
  newestMs = (await db.pool.query<{ at: Date }>('select max("date") as at from device_records')).rows[0]!.at.getTime();
});
test.after(async () => { await db?.drop(); });

/** Ground truth: the caller's rows in [from's start, the day after to's start) of `tz`, newest first. */
async function expected(who: DemoCaller, tz: string, from: string | null, to: string | null): Promise<string[]> {
  const reach = who === 'admin' ? `d."OrganizationID" = 'north'`
    : who === 'south admin' ? `d."OrganizationID" = 'south'`
      : `d."OrganizationID" = 'north' and exists (select 1 from group_device_links l join user_groups ug on ug."GroupID" = l."GroupID" join groups g on g."GroupID" = ug."GroupID" and g.deleted_at is null join users u on u.id = ug.user_id where l."DeviceID" = d."DeviceID" and u.email = 'east@north.example')`;
  const { rows } = await db.pool.query<{ id: string }>(
    `select r."RecordID"::text as id from device_records r join device_information d on d."IMEINumber" = r."IMEINumber"
      where d.deleted_at is null and ${reach} and r."date" >= d."OrganizationSince"
        and ($2::date is null or r."date" >= ($2::date)::timestamp at time zone $1)
        and ($3::date is null or r."date" < ($3::date + 1)::timestamp at time zone $1)
      order by r."date" desc, r."RecordID" desc`, [tz, from, to]);
  return rows.map((r) => r.id);
}

const ids = (b: Body) => b.data.map((r) => String(r.RecordID));

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

test('ranged keyset chains and OFFSET pages equal direct SQL, zones far from UTC, moved device, three callers', async () => {
  const ranges: [string | null, string | null][] = [
    [dayOf(newestMs - 6 * DAY), dayOf(newestMs)],
    [dayOf(newestMs - 40 * DAY), dayOf(newestMs - 40 * DAY)],
    [dayOf(newestMs - 45 * DAY), null],
    [null, dayOf(newestMs - 50 * DAY)],
    ['20000101', '29991231'],
  ];
  for (const tz of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu', 'America/Santiago', 'UTC']) {
    for (const who of ['admin', 'group user', 'south admin'] as const) {
      const get = await client(who, tz);
      for (const [from, to] of ranges) {
        const range = [from ? `from=${from}` : '', to ? `to=${to}` : ''].filter(Boolean).join('&');
        const want = await expected(who, tz, from, to);
        const got: string[] = [];
        let r = await get(`/device-records/data-log?limit=97&${range}`);
        assert.is(r.status, 200, JSON.stringify(r.body).slice(0, 300));
        got.push(...ids(r.body));
        let guard = 0;
        while (r.body.next && guard++ < 200) {
          r = await get(`/device-records/data-log?limit=97&${range}&after=${encodeURIComponent(r.body.next)}`);
          assert.is(r.status, 200, JSON.stringify(r.body).slice(0, 300));
          got.push(...ids(r.body));
        }
        assert.equal(got, want, `${who} ${tz} ${range}: keyset chain`);
        // OFFSET pages 0..2 (page 0 prepared with the range as values, deeper pages with it spelled in).
        const off: string[] = [];
        for (let page = 0; page < 3; page++) off.push(...ids((await get(`/device-records/data-log?limit=97&${range}&page=${page}`)).body));
        assert.equal(off, want.slice(0, 291), `${who} ${tz} ${range}: offset`);
        const first = await get(`/device-records/data-log?limit=97&${range}`);
        if (want.length > 0) assert.is(first.body.total! >= Math.min(want.length, 1000), true, `${who} ${tz} ${range}: total ${first.body.total} vs ${want.length}`);
      }
    }
  }
});

test('edge days and forged cursors in a range: 200 or 400, never 500; the marker never reaches PostgreSQL', async () => {
  const get = await client('admin', 'Pacific/Kiritimati');
  const statuses: Record<string, number> = {};
  const paths = [
    '/device-records/data-log?from=00010101', '/device-records/data-log?to=99991231', '/device-records/data-log?from=19991231',
    '/device-records/data-log?to=30000101', '/device-records/data-log?from=20000101&to=29991231&limit=500',
    `/device-records/data-log?from=20000101&to=29991231&after=${encodeCursor(['0001-01-01 00:00:00+15:59', '1'])}`,
    `/device-records/data-log?from=20000101&to=29991231&after=${encodeCursor(['9999-12-31 23:59:59.999999-15:59:59', '9223372036854775807'])}`,
    `/device-records/data-log?after=${encodeCursor(['9999-12-31 23:59:59.999999-15:59:59', '9223372036854775807'])}`,
    `/device-records/data-log?after=${encodeCursor(['0001-01-01 00:00:00+15:59', '-9223372036854775808'])}`,
    '/device-records/data-log?page=1000000&limit=500', '/device-records/data-log?page=1000000&limit=500&from=20000101',
    '/device-records/data-log?page=3&limit=500&to=29991231',
    `/device-records/data-log?filterBy=${encodeURIComponent(JSON.stringify({ CurrentName: { contains: "$newest_window_start'::timestamptz; --" } }))}`,
    `/device-records/data-log?page=2&filterBy=${encodeURIComponent(JSON.stringify({ CurrentName: { ne: '$newest_window_start' } }))}`,
    `/device-records/data-log?page=2&from=20260101&filterBy=${encodeURIComponent(JSON.stringify({ IMEINumber: { in: ['$newest_window_start', '$1'] } }))}`,
    `/device-records/data-log?sortBy=${encodeURIComponent(JSON.stringify({ field: 'date', order: 'desc' }))}&page=1`,
    `/device-records/data-log?sortBy=${encodeURIComponent(JSON.stringify([{ field: 'date', order: 'desc' }, { field: 'RecordID', order: 'desc' }]))}&from=20260101`,
  ];
  for (const p of paths) statuses[p] = (await get(p)).status;
  for (const [p, s] of Object.entries(statuses)) assert.ok(s === 200 || s === 400, `${p}: ${s}`);
  assert.ok(sent.length > 0 && sent.every((st) => !/\$(newest_window_start|range_from|range_until)/.test(st.text)), 'a marker reached PostgreSQL');
});

test.run();
